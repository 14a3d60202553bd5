import { z } from "zod";
import { ApiSpec } from "./api.ts";
import { TypeRef } from "./objects.ts";

/**
 * How a watched object maps to the parent key it makes dirty.
 * - `self`: the object is the parent.
 * - `owner`: its controller ownerReference of the given kind names the parent.
 * - `label`: the value of `label` is the parent's name (same namespace).
 * - `node`: a pod's `spec.nodeName` is the parent (a Node) key.
 * - `reference`: the parent's spec names it; `paths` are dot paths into the parent
 *   (`[]` walks arrays), e.g. `spec.trainingWorkers[].dataset.name`. These are `related`.
 */
export const Mapping = z.discriminatedUnion("by", [
  z.object({ by: z.literal("self") }),
  z.object({ by: z.literal("owner"), owner: TypeRef }),
  z.object({ by: z.literal("label"), label: z.string().min(1) }),
  z.object({ by: z.literal("node") }),
  z.object({ by: z.literal("reference"), paths: z.array(z.string().min(1)).min(1) }),
]);
export type Mapping = z.infer<typeof Mapping>;

/** One kind a controller watches. */
export const Watch = z.object({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  /** Plural resource name, for the API path and RBAC (e.g. `pods`). */
  resource: z.string().min(1),
  namespaced: z.boolean(),
  mapping: Mapping,
  labelSelector: z.string().optional(),
  fieldSelector: z.string().optional(),
});
export type Watch = z.infer<typeof Watch>;

/** An admission rule as in admissionregistration.k8s.io/v1. */
export const WebhookRule = z.object({
  operations: z.array(z.enum(["CREATE", "UPDATE", "DELETE", "CONNECT", "*"])).min(1),
  apiGroups: z.array(z.string()).min(1),
  apiVersions: z.array(z.string()).min(1),
  resources: z.array(z.string()).min(1),
  scope: z.enum(["Namespaced", "Cluster", "*"]).optional(),
});
export type WebhookRule = z.infer<typeof WebhookRule>;

/** A metav1.LabelSelector. */
export const LabelSelector = z.object({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z
    .array(z.object({ key: z.string().min(1), operator: z.enum(["In", "NotIn", "Exists", "DoesNotExist"]), values: z.array(z.string()).optional() }))
    .optional(),
});
export type LabelSelector = z.infer<typeof LabelSelector>;

/** An admission webhook the Worker serves at `POST /v1/admission/{name}`. */
export const WebhookSpec = z.object({
  name: z.string().regex(/^[a-z0-9-]+$/),
  type: z.enum(["mutating", "validating"]),
  rules: z.array(WebhookRule).min(1),
  failurePolicy: z.enum(["Fail", "Ignore"]),
  timeoutSeconds: z.number().int().min(1).max(30).default(10),
  /** Only objects whose labels match are sent (as in the webhook configuration). */
  objectSelector: LabelSelector.optional(),
  /** Only objects in namespaces whose labels match are sent. */
  namespaceSelector: LabelSelector.optional(),
  /** Kinds whose cached objects the relay attaches as `related`. */
  related: z.array(TypeRef).default([]),
});
export type WebhookSpec = z.infer<typeof WebhookSpec>;

/** One controller's entry in the manifest. */
export const ControllerManifest = z.object({
  name: z.string().regex(/^[a-z0-9-]+$/),
  delivery: z.enum(["snapshot", "events"]),
  /** The parent kind (snapshot delivery); absent for `events` delivery. */
  parent: TypeRef.optional(),
  watches: z.array(Watch),
  webhooks: z.array(WebhookSpec).default([]),
  /** HTTP APIs the relay's front serves for this controller. */
  apis: z.array(ApiSpec).default([]),
});
export type ControllerManifest = z.infer<typeof ControllerManifest>;

/** `GET /v1/manifest`: what the relay must watch, and for whom. */
export const Manifest = z.object({
  version: z.literal("v1"),
  controllers: z.array(ControllerManifest),
});
export type Manifest = z.infer<typeof Manifest>;
