import { HttpError } from "../http/errors.ts";
import { parseJson } from "../http/body.ts";
import { AdmissionResponse, AdmissionReviewRequest, type AdmissionReviewResponse } from "../../protocol/index.ts";
import type { Registry } from "../registry.ts";

/** `POST /v1/admission/:webhook`: the AdmissionReview the relay forwarded, answered. */
export function admissionRoute(registry: Registry, name: string, body: Uint8Array): AdmissionReviewResponse {
  const webhook = registry.webhook(name);
  if (!webhook) throw new HttpError(404, "unknown_webhook", `no webhook named ${name}`, "webhook");
  const review = parseJson(body, AdmissionReviewRequest);
  // The relay's clock when it sent one; a review without one is answered on the Worker's.
  const now = review.now === undefined ? Date.now() : Date.parse(review.now);
  const response = AdmissionResponse.parse({ ...webhook.review(review.request, review.related, now), uid: review.request.uid });
  return { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response };
}
