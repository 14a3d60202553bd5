import { z } from "zod";
import { ApiSpec } from "./api.ts";
import { ChannelSpec } from "./channel.ts";
import { Mapping } from "./mapping.ts";
import { LabelSelector, TypeRef } from "./objects.ts";
import { Permission } from "./permissions.ts";
import { FieldPath } from "./paths.ts";
import { parseLabelSelector } from "./kube/selectors.ts";
import { RelatedObjects } from "./related.ts";

/** Refuses a label selector string with the API server's own message. */
function validLabelSelector(selector: string, context: z.RefinementCtx): void {
  try {
    parseLabelSelector(selector);
  } catch (error) {
    context.addIssue({ code: "custom", message: (error as Error).message });
  }
}

/** One kind a controller watches. */
export const Watch = z.object({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  /** Plural resource name, for the API path and RBAC (e.g. `pods`). */
  resource: z.string().min(1),
  namespaced: z.boolean(),
  mapping: Mapping,
  /** A label selector string, refused here when the API server would refuse it (the relay parses it once per manifest). */
  labelSelector: z.string().superRefine(validLabelSelector).optional(),
  fieldSelector: z.string().optional(),
  /**
   * Additions and changes of this kind make their parent dirty after this many
   * milliseconds, so that a burst of them (a job's pods starting) is one reconcile and one
   * status write, as kube's Job controller batches pod updates for 1 s; an events
   * controller's batch holding them is sent after this many milliseconds. Deletions are
   * not held back (a replacement must not wait) unless `batchDeletions` says so.
   */
  batchMilliseconds: z.number().int().min(0).max(10_000).optional(),
  /**
   * Deletions of this kind wait out `batchMilliseconds` too: for a controller that
   * replaces nothing when one goes (a controller keyed by Node that marks its pods has
   * nothing to do for a pod that is gone), so that a node's pods deleted one by one are one reconcile of its
   * snapshot, not one each.
   */
  batchDeletions: z.boolean().optional(),
  /**
   * What the controller reads of these objects (its reconcile, webhooks and APIs): the
   * relay's cache keeps only these paths (`[]` for every element of an array), with
   * `metadata.name/namespace/uid/resourceVersion/generation/creationTimestamp/
   * ownerReferences/deletionTimestamp` and the `field` mapping's path always kept. Absent:
   * whole objects. The watches sharing a cache keep the union of theirs (ADR 0016). A change
   * of none of them (nor of the labels) is not sent: no events batch, no reconcile (ADR 0035).
   */
  fields: z.array(FieldPath).min(1).max(64).optional(),
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

/**
 * One condition the relay checks before forwarding an admission request: `found`, a cached
 * object that this `related` entry finds for the request (narrowed as a webhook's
 * `related` are); or `hasKey`, the map at `path` of the AdmissionRequest holding one of
 * `keys` (an annotation or label key, which a field path cannot spell).
 */
export const ForwardCondition = z.union([
  z.object({ found: RelatedObjects }).strict(),
  z.object({ path: FieldPath, hasKey: z.array(z.string().min(1).max(317)).min(1).max(16) }).strict(),
]);
export type ForwardCondition = z.infer<typeof ForwardCondition>;

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
  /** Kinds whose cached objects the relay attaches as `related`, each narrowed to the request. */
  related: z.array(RelatedObjects).default([]),
  /**
   * The relay forwards only requests holding a value (not absent, null, "", 0 or false)
   * at one of these paths of the AdmissionRequest, and allows the others at once without
   * calling the Worker: a pod created unbound (`object.spec.nodeName`) costs its creator
   * no hop. Like a webhook's `matchConditions`, decided by the relay.
   */
  onlyWhen: z.array(FieldPath).min(1).max(16).optional(),
  /**
   * Of the requests `onlyWhen` lets through, the relay forwards only those for which one of
   * these holds, and allows the others at once: for a webhook that acts only when its
   * cached objects or the object say so (a pod's webhook that has nothing to do unless the
   * pod's node carries a label, or the pod an annotation), the other requests cost their
   * creator no Worker call. It must hold for every request the webhook would answer with
   * more than a plain allow.
   */
  forwardWhen: z.array(ForwardCondition).min(1).max(8).optional(),
  /**
   * Users whose requests this webhook never reviews: rendered as the webhook
   * configuration's `matchConditions` (kube-apiserver does not call it for them), and
   * allowed by the relay at once for a request that reaches it anyway (the sim, which
   * does not evaluate `matchConditions`). For a fail-closed webhook that must never block
   * a control-plane writer, such as node-lifecycle's taints while the Worker is away.
   */
  exemptUsers: z.array(z.string().min(1).max(253)).min(1).max(16).optional(),
  /**
   * Where the decision is made. `worker` (the default): the relay forwards the review to
   * the Worker across the internet. `relay`: the relay runs the family's own review code,
   * pure, on its cached objects, so the write it guards never waits on the link nor fails
   * while the Worker is away (ADR 0034); the Worker serves the same code for a relay that
   * lacks it. For webhooks on objects the cluster itself writes (Pods, Nodes, Endpoints).
   */
  decidedAt: z.enum(["worker", "relay"]).default("worker"),
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
  /** Edge channels the relay serves for this controller (ADR 0028). */
  channels: z.array(ChannelSpec).default([]),
  /**
   * Snapshot delivery: more cached objects the relay adds to every snapshot's `related`,
   * narrowed to the parent as a webhook's are to its request, with paths from `object`
   * (the parent): a node's pool peers are `sharingLabels` of `object.metadata.name`.
   */
  related: z.array(RelatedObjects).default([]),
  /** What the controller may read and write: the relay's ClusterRole is built from these alone. */
  permissions: z.array(Permission).default([]),
});
export type ControllerManifest = z.infer<typeof ControllerManifest>;

/** `GET /v1/manifest`: what the relay must watch, and for whom. */
export const Manifest = z.object({
  version: z.literal("v1"),
  controllers: z.array(ControllerManifest),
});
export type Manifest = z.infer<typeof Manifest>;
