/**
 * The review code of the webhooks the relay decides itself (ADR 0034), by name: each
 * family's `relay-webhooks.ts` exports them, and the relay is handed them at its start.
 * The same functions the Worker's admission route calls, so both decide alike. Pure: it
 * runs in the relay's Node as in workerd.
 */
import { WebhookSpec, type RelayDecided, type WebhookReviewer } from "../protocol/index.ts";
import type { Webhook } from "./kit/controller.ts";

/** The reviewers of `webhooks` (every family's `relay-webhooks.ts`); each must be declared `decidedAt: relay`. */
export function relayDecided(webhooks: readonly Webhook[]): RelayDecided {
  const entries = webhooks.map((webhook): [string, WebhookReviewer] => {
    const spec = WebhookSpec.parse(webhook.spec);
    if (spec.decidedAt !== "relay") throw new Error(`webhook ${spec.name} is exported for the relay (relay-webhooks.ts) but declared decidedAt: ${spec.decidedAt}`);
    return [spec.name, webhook.review.bind(webhook)];
  });
  return new Map(entries);
}
