/**
 * The draft an update makes of the stored object, before admission: a status write
 * changes only the status, a finalize write what the kind's `finalize` says, a write of
 * the main resource everything but the immutable metadata (and the status, when the kind
 * has a status subresource). Pure.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { ApiError } from "../contract.ts";
import { invalid } from "../pipeline/errors.ts";
import type { ResourceType } from "../registry/resource.ts";
import type { Kind } from "./kinds/kind.ts";
import type { Obj } from "./objects.ts";

/** The draft of an update of `current` with `incoming`. */
export function updateDraft(kind: Kind, resource: ResourceType, current: KubeObject, incoming: KubeObject, subresource: "" | "status" | "finalize"): KubeObject {
  if (subresource === "status") return { ...current, status: (incoming as Obj).status } as KubeObject;
  if (subresource === "finalize") {
    if (!kind.finalize) throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
    return kind.finalize(current, incoming);
  }
  return kind.keepOnUpdate(mainDraft(resource, current, incoming), current);
}

/** A write of the main resource: the body, with the stored object's identity, lifecycle and generation. */
function mainDraft(resource: ResourceType, current: KubeObject, incoming: KubeObject): KubeObject {
  const name = current.metadata.name ?? "";
  const namespace = current.metadata.namespace;
  const draft: KubeObject = { ...incoming, apiVersion: current.apiVersion, kind: current.kind };
  if (resource.statusSubresource) (draft as Obj).status = (current as Obj).status;
  if ((draft as Obj).status === undefined) delete (draft as Obj).status;
  draft.metadata = {
    ...incoming.metadata,
    name,
    ...(namespace ? { namespace } : {}),
    uid: current.metadata.uid,
    creationTimestamp: current.metadata.creationTimestamp,
    ...(current.metadata.deletionTimestamp ? { deletionTimestamp: current.metadata.deletionTimestamp, deletionGracePeriodSeconds: current.metadata.deletionGracePeriodSeconds } : {}),
    ...(current.metadata.generation !== undefined ? { generation: current.metadata.generation } : {}),
  };
  if (!draft.metadata.deletionTimestamp) delete draft.metadata.deletionTimestamp;
  if (draft.metadata.deletionGracePeriodSeconds === undefined) delete draft.metadata.deletionGracePeriodSeconds;
  const added = current.metadata.deletionTimestamp ? (draft.metadata.finalizers ?? []).filter((f) => !(current.metadata.finalizers ?? []).includes(f)) : [];
  if (added.length > 0) {
    // Worded with Go's %#v of the new ones; kube-apiserver reports it twice (object meta and the store's update checks).
    const cause = { field: "metadata.finalizers", reason: "FieldValueForbidden", message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(", ")}}` } as const;
    throw invalid(resource.kind, resource.group, name, [cause, cause]);
  }
  return draft;
}
