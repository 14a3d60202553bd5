import { z } from "zod";
import { KindKey, KubeObject } from "./objects.ts";
import { Timestamp } from "./reconcile.ts";

const GroupVersionKind = z.object({ group: z.string(), version: z.string(), kind: z.string() });
const GroupVersionResource = z.object({ group: z.string(), version: z.string(), resource: z.string() });

/** admission.k8s.io/v1 AdmissionRequest, the fields edgeloop reads. */
export const AdmissionRequest = z
  .object({
    uid: z.string().min(1),
    kind: GroupVersionKind,
    resource: GroupVersionResource,
    subResource: z.string().optional(),
    name: z.string().optional(),
    namespace: z.string().optional(),
    operation: z.enum(["CREATE", "UPDATE", "DELETE", "CONNECT"]),
    userInfo: z.record(z.string(), z.unknown()).optional(),
    object: KubeObject.nullable().optional(),
    oldObject: KubeObject.nullable().optional(),
    dryRun: z.boolean().optional(),
  })
  .loose();
export type AdmissionRequest = z.infer<typeof AdmissionRequest>;

/** admission.k8s.io/v1 AdmissionResponse. `patch` is base64 of a JSONPatch. */
export const AdmissionResponse = z.object({
  uid: z.string().min(1),
  allowed: z.boolean(),
  status: z
    .object({ code: z.number().int().optional(), message: z.string().optional(), reason: z.string().optional() })
    .optional(),
  patch: z.string().optional(),
  patchType: z.literal("JSONPatch").optional(),
  warnings: z.array(z.string()).optional(),
});
export type AdmissionResponse = z.infer<typeof AdmissionResponse>;

/**
 * What the relay forwards to `POST /v1/admission/{webhook}`: the AdmissionReview the
 * API server sent, plus `related`, the cached objects of the kinds the webhook declared,
 * and `now`, the relay's clock (RFC 3339), for webhooks whose answer depends on time.
 */
export const AdmissionReviewRequest = z.object({
  apiVersion: z.literal("admission.k8s.io/v1"),
  kind: z.literal("AdmissionReview"),
  request: AdmissionRequest,
  related: z.record(KindKey, z.array(KubeObject)).default({}),
  now: Timestamp.optional(),
});
export type AdmissionReviewRequest = z.infer<typeof AdmissionReviewRequest>;

/** The AdmissionReview the Worker answers with. */
export const AdmissionReviewResponse = z.object({
  apiVersion: z.literal("admission.k8s.io/v1"),
  kind: z.literal("AdmissionReview"),
  response: AdmissionResponse,
});
export type AdmissionReviewResponse = z.infer<typeof AdmissionReviewResponse>;

/**
 * A webhook's decision as a pure function of the request, its related cached objects and
 * the clock (ms): what a family's webhook code is, wherever it runs.
 */
export type WebhookReviewer = (request: AdmissionRequest, related: Readonly<Record<string, readonly KubeObject[]>>, now: number) => AdmissionResponse;

/** The reviewers of the webhooks the relay decides itself (`decidedAt: relay`), by webhook name. */
export type RelayDecided = ReadonlyMap<string, WebhookReviewer>;
