/**
 * What a webhook or an HTTP API receives besides its request: cached objects of kinds
 * its controller watches, narrowed to the request by the relay. Every narrowing given
 * applies (they combine), and at least one must be given: nothing is sent whole.
 */
import { z } from "zod";
import { LabelSelector, TypeRef } from "./objects.ts";
import { FieldPath } from "./paths.ts";

/**
 * One related kind and how it is narrowed:
 * - `sameNamespace`: only objects in the namespace the request names (an admission
 *   request's `namespace`; an API request's `?namespace=` or top-level JSON `namespace`).
 *   A request that names none gets none. Only for namespaced kinds.
 * - `selector`: only objects whose labels match.
 * - `namedBy`: only objects whose name is at one of these paths of the request (of the
 *   AdmissionRequest, e.g. `object.spec.nodeName`; of an API request's
 *   `{ query, body }`, e.g. `query.name`). Namespaced kinds are looked up in the
 *   request's namespace.
 * - `named`: only these objects, whatever the request (a configuration object at a
 *   fixed place, such as a controller's configuration in its own namespace).
 * - `sharingLabels`: only objects whose labels equal, at each of `labels`, those of an
 *   object of `kind` (default: this kind) named at one of `namedBy` in the request's
 *   namespace: the pods of the job whose coordinator the request names.
 * - `ownerOf`: only the controller owners, of this kind, of the objects of `kind` named
 *   at `namedBy` in the request's namespace: the job of the named coordinator.
 *
 * `unlessNamed` makes a whole entry conditional: it applies only to a request that holds
 * no value at any of these paths (a list-everything entry that a request naming one
 * thing does not need). `onlyWhen` is its converse: the entry applies only to a request
 * holding a value (not empty, zero or false) at one of these paths (the nodes only a
 * request for GPUs needs).
 */
const NamedBy = z.array(FieldPath).min(1).max(16);
export const RelatedObjects = TypeRef.extend({
  sameNamespace: z.boolean().default(false),
  selector: LabelSelector.optional(),
  namedBy: NamedBy.optional(),
  named: z.array(z.object({ namespace: z.string().min(1).optional(), name: z.string().min(1) })).min(1).max(16).optional(),
  sharingLabels: z.object({ kind: TypeRef.optional(), namedBy: NamedBy, labels: z.array(z.string().min(1).max(317)).min(1).max(8) }).optional(),
  ownerOf: z.object({ kind: TypeRef, namedBy: NamedBy }).optional(),
  unlessNamed: NamedBy.optional(),
  onlyWhen: NamedBy.optional(),
}).refine(
  (related) => related.sameNamespace || related.selector !== undefined || related.namedBy !== undefined || related.named !== undefined || related.sharingLabels !== undefined || related.ownerOf !== undefined,
  { message: "say how the related objects are narrowed: sameNamespace, selector, namedBy, named, sharingLabels or ownerOf" },
);
export type RelatedObjects = z.infer<typeof RelatedObjects>;
/** A related kind as a controller declares it (defaults may be left out). */
export type RelatedObjectsInput = z.input<typeof RelatedObjects>;
