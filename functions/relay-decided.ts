/**
 * The review code of every webhook declared `decidedAt: relay`, by name: what the relay is
 * handed at its start so that it decides those webhooks itself (ADR 0034). The same
 * functions the Worker's admission route calls, so both decide alike. Pure: it runs in
 * the relay's Node as in workerd.
 */
import { WebhookSpec, type RelayDecided, type WebhookReviewer } from "../protocol/index.ts";
import type { Controller } from "./kit/controller.ts";

/** The reviewers of the webhooks the controllers have the relay decide. */
export function relayDecided(controllers: readonly Controller[]): RelayDecided {
  const entries = controllers.flatMap((controller) =>
    (controller.webhooks ?? []).flatMap((webhook): [string, WebhookReviewer][] => {
      const spec = WebhookSpec.parse(webhook.spec);
      return spec.decidedAt === "relay" ? [[spec.name, webhook.review.bind(webhook)]] : [];
    }),
  );
  return new Map(entries);
}
