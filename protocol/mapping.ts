/**
 * How a watched object maps to the parent key it makes dirty, and where a snapshot
 * carries it. Declared here once; the relay resolves it in one place
 * (`protocol/snapshot/mapping.ts`) and the Worker checks snapshots against it in one place
 * (`functions/routes/reconcile.ts`).
 */
import { z } from "zod";
import { TypeRef } from "./objects.ts";
import { FieldPath } from "./paths.ts";

/**
 * - `self`: the object is the parent.
 * - `owner`: its controller ownerReference of the given kind names the parent.
 * - `label`: the value of `label` is the parent's name.
 * - `field`: the values at `path` are parents' names: a Pod's `spec.nodeName` names a
 *   Node, an EndpointSlice's `endpoints[].nodeName` names several.
 * - `reference`: the parent's spec names it at one of `paths` (into the parent); these
 *   objects are the parent's `related`, not its children.
 * - `none`: the object belongs to no parent: the relay caches the kind for the
 *   controller's webhooks and APIs (`related`), and its changes reconcile nothing.
 *
 * A parent of a namespaced kind is looked for in the child's namespace; a cluster-scoped
 * parent (a Node) by name alone.
 */
export const Mapping = z.discriminatedUnion("by", [
  z.object({ by: z.literal("self") }),
  z.object({ by: z.literal("owner"), owner: TypeRef }),
  z.object({ by: z.literal("label"), label: z.string().min(1) }),
  z.object({ by: z.literal("field"), path: FieldPath }),
  z.object({ by: z.literal("reference"), paths: z.array(FieldPath).min(1) }),
  z.object({ by: z.literal("none") }),
]);
export type Mapping = z.infer<typeof Mapping>;

/**
 * Where a snapshot carries the objects of a watch: the parent itself, its children, its
 * related objects, or nowhere (`none`: a cache-only watch).
 */
export type SnapshotPart = "parent" | "children" | "related" | "none";

/** The part of a `ReconcileRequest` that holds the objects a mapping finds. */
export function snapshotPart(mapping: Mapping): SnapshotPart {
  switch (mapping.by) {
    case "self":
      return "parent";
    case "reference":
      return "related";
    case "owner":
    case "label":
    case "field":
      return "children";
    case "none":
      return "none";
  }
}

/** The key of the parent named `name` for a child in `childNamespace`. */
export function parentKey(name: string, childNamespace: string | undefined, parentNamespaced: boolean): string {
  return parentNamespaced && childNamespace ? `${childNamespace}/${name}` : name;
}
