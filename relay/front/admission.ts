/**
 * Admission through the relay's TLS front: a review is forwarded, signed, to the Worker
 * with the cached objects its webhook declared (`related`), narrowed to the request; when
 * the Worker cannot decide, it is answered per the webhook's failurePolicy. A webhook
 * declaring `onlyWhen` paths or `forwardWhen` conditions is answered `allowed` at once for
 * a request the gate (`protocol/snapshot/admission-gate.ts`) keeps from the Worker. The relay knows no webhook by name: the manifest lists them.
 */
import { AdmissionReviewRequest, jsonTooDeep, MAX_JSON_DEPTH, type AdmissionReviewResponse, type WebhookSpec } from "../../protocol/index.ts";
import { forwards } from "../../protocol/snapshot/admission-gate.ts";
import type { RelatedCaches } from "../../protocol/snapshot/caches.ts";
import { relatedObjects } from "../../protocol/snapshot/related.ts";
import type { Logger } from "../../cli/log.ts";
import type { ManifestSource } from "../deliver/manifest.ts";
import type { WorkerClient } from "../deliver/worker-client.ts";
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

/** What admission uses. */
export interface AdmissionDeps {
  readonly manifests: ManifestSource;
  /** The unfiltered caches `related` objects come from. */
  readonly related: RelatedCaches;
  readonly worker: Pick<WorkerClient, "admission">;
  readonly log: Logger;
}

/** The admission webhooks of the manifest in use. */
export class Admission {
  readonly #deps: AdmissionDeps;

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
    if (!forwards(spec, review.request, this.#deps.related)) return { status: 200, body: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: review.request.uid, allowed: true } } };
    // `namedBy` paths of a webhook start from the AdmissionRequest.
    const related = relatedObjects(spec.related, { namespace: review.request.namespace, root: review.request }, this.#deps.related);
    try {
      return { status: 200, body: await this.#deps.worker.admission(webhook, { ...review, related, now: new Date().toISOString() }, spec.timeoutSeconds * 1000) };
    } catch (error) {
      this.#deps.log("warn", "admission forwarding failed", { webhook, error: String(error), failurePolicy: spec.failurePolicy });
      return { status: 200, body: failureAnswer(review.request.uid, spec, String(error)) };
    }
  }
}

/** The 400 of a body nested deeper than {@link MAX_JSON_DEPTH}, naming the field (the Worker's `too_deep`). */
export function tooDeepReply(path: string): ApiReply {
  return { status: 400, body: { error: { code: "too_deep", message: `nested more than ${MAX_JSON_DEPTH} arrays/objects deep`, path } } };
}
