/**
 * Admission through the relay's TLS front, with the cached objects its webhook declared
 * (`related`), narrowed to the request. A webhook declared `decidedAt: relay` is decided
 * here by the family's own review code, handed to the relay at its start (`RelayDecided`),
 * so the write it guards never waits on the link to the Worker, nor fails while the
 * Worker is away (ADR 0034). Any other is forwarded, signed, to the Worker; when the
 * Worker cannot decide, it is answered per the webhook's failurePolicy, and while the
 * Worker is known to be unreachable it is given a second at most, not its whole timeout.
 * A webhook declaring `onlyWhen` paths or `forwardWhen` conditions is answered `allowed`
 * at once for a request the gate (`protocol/snapshot/admission-gate.ts`) keeps from the
 * Worker. The relay knows no webhook by name: the manifest lists them.
 */
import { AdmissionResponse, AdmissionReviewRequest, jsonTooDeep, MAX_JSON_DEPTH, type AdmissionReviewResponse, type KubeObject, type RelayDecided, type WebhookSpec } from "../../protocol/index.ts";
import { forwards } from "../../protocol/snapshot/admission-gate.ts";
import type { RelatedCaches } from "../../protocol/snapshot/caches.ts";
import { relatedObjects } from "../../protocol/snapshot/related.ts";
import type { Logger } from "../../cli/log.ts";
import type { ManifestSource } from "../deliver/manifest.ts";
import { workerAway, type WorkerClient } from "../deliver/worker-client.ts";
import type { ApiReply } from "./api.ts";

/** The answer when the Worker could not decide: allowed for `Ignore`, denied for `Fail`. */
export function failureAnswer(uid: string, spec: WebhookSpec | undefined, reason: string): AdmissionReviewResponse {
  const allowed = spec?.failurePolicy === "Ignore";
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    response: { uid, allowed, ...(allowed ? { warnings: [`edgeloop webhook unavailable: ${reason}`] } : { status: { code: 500, message: `edgeloop webhook unavailable: ${reason}` } }) },
  };
}

/** How long a forwarded review may wait while the Worker is known to be unreachable. */
const WHILE_UNREACHABLE_MS = 1_000;

/** What admission uses. */
export interface AdmissionDeps {
  readonly manifests: ManifestSource;
  /** The unfiltered caches `related` objects come from. */
  readonly related: RelatedCaches;
  readonly worker: Pick<WorkerClient, "admission">;
  readonly log: Logger;
  /** The reviewers of the webhooks decided here (none: every webhook is forwarded). */
  readonly decided?: RelayDecided;
  /** Whether the Worker answered the relay's last call or probe. */
  readonly workerUp?: () => boolean;
}

/** An AdmissionReview answer. */
function reviewed(response: AdmissionResponse): ApiReply {
  return { status: 200, body: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response } satisfies AdmissionReviewResponse };
}

/** The admission webhooks of the manifest in use. */
export class Admission {
  readonly #deps: AdmissionDeps;
  /** Webhooks declared `decidedAt: relay` whose code this relay lacks, warned of once each. */
  readonly #missing = new Set<string>();

  constructor(deps: AdmissionDeps) {
    this.#deps = deps;
  }

  /** Answers one review sent to `webhook`. */
  async review(webhook: string, body: string): Promise<ApiReply> {
    const spec = this.#deps.manifests.manifest.controllers.flatMap((c) => c.webhooks).find((w) => w.name === webhook);
    // Before anything recursive (zod, the gate, the signature's JSON.stringify) walks it: 100,000 deep overflowed the stack.
    const deep = jsonTooDeep(body);
    if (deep !== undefined) return tooDeepReply(deep);
    let review: AdmissionReviewRequest;
    try {
      review = AdmissionReviewRequest.parse({ ...(JSON.parse(body) as object), related: {} });
    } catch (error) {
      return { status: 400, body: { error: { code: "invalid", message: `not an AdmissionReview: ${(error as Error).message}`, path: "" } } };
    }
    if (!spec) return { status: 404, body: { error: { code: "unknown_webhook", message: `no webhook named ${webhook}`, path: "webhook" } } };
    if (!forwards(spec, review.request, this.#deps.related)) return reviewed({ uid: review.request.uid, allowed: true });
    // `namedBy` paths of a webhook start from the AdmissionRequest.
    const related = relatedObjects(spec.related, { namespace: review.request.namespace, root: review.request }, this.#deps.related);
    const now = Date.now();
    const here = spec.decidedAt === "relay" ? this.#decideHere(spec, review, related, now) : undefined;
    if (here) return here;
    const timeoutMs = this.#deps.workerUp?.() === false ? Math.min(WHILE_UNREACHABLE_MS, spec.timeoutSeconds * 1000) : spec.timeoutSeconds * 1000;
    try {
      return { status: 200, body: await this.#deps.worker.admission(webhook, { ...review, related, now: new Date(now).toISOString() }, timeoutMs) };
    } catch (error) {
      this.#deps.log("warn", "admission forwarding failed", { webhook, error: String(error), failurePolicy: spec.failurePolicy });
      const reason = workerAway(error) ? `the edgeloop Worker is unreachable from the relay (${(error as Error).message}); this webhook is failurePolicy ${spec.failurePolicy} until it answers again` : String(error);
      return { status: 200, body: failureAnswer(review.request.uid, spec, reason) };
    }
  }

  /**
   * The family's own review, run here on the cached objects and this relay's clock; a
   * review that throws is answered per the failurePolicy. Undefined when this relay was
   * started without the webhook's code (an older relay image): then it is forwarded.
   */
  #decideHere(spec: WebhookSpec, review: AdmissionReviewRequest, related: Readonly<Record<string, readonly KubeObject[]>>, now: number): ApiReply | undefined {
    const reviewer = this.#deps.decided?.get(spec.name);
    if (!reviewer) {
      if (!this.#missing.has(spec.name)) this.#deps.log("warn", "a webhook the manifest has the relay decide is not in this relay's build: forwarding it to the Worker", { webhook: spec.name });
      this.#missing.add(spec.name);
      return undefined;
    }
    try {
      return reviewed(AdmissionResponse.parse({ ...reviewer(review.request, related, now), uid: review.request.uid }));
    } catch (error) {
      this.#deps.log("error", "a webhook's review failed at the relay", { webhook: spec.name, error: String(error), failurePolicy: spec.failurePolicy });
      return { status: 200, body: failureAnswer(review.request.uid, spec, `its review failed: ${(error as Error).message}`) };
    }
  }
}

/** The 400 of a body nested deeper than {@link MAX_JSON_DEPTH}, naming the field (the Worker's `too_deep`). */
export function tooDeepReply(path: string): ApiReply {
  return { status: 400, body: { error: { code: "too_deep", message: `nested more than ${MAX_JSON_DEPTH} arrays/objects deep`, path } } };
}
