/**
 * The registry store's own checks of a delete, before the webhooks see it: the kind's
 * refusal (the system PriorityClasses) and the request's preconditions (uid,
 * resourceVersion) against the stored object.
 */
import { ApiError } from "../../contract.ts";
import type { ResourceType } from "../../registry/resource.ts";
import type { AdmissionStep } from "./step.ts";

/**
 * A delete precondition that fails in storage: kube-apiserver v1.36 names the object by
 * its kind there (`Operation cannot be fulfilled on ConfigMap "x": the UID in the
 * precondition ...`), details.kind the kind too (checked on core kinds by npm run conformance).
 */
function preconditionFailed(resource: ResourceType, name: string, why: string): ApiError {
  const kind = resource.group === "" ? resource.kind : `${resource.kind}.${resource.group}`;
  return new ApiError(409, "Conflict", `Operation cannot be fulfilled on ${kind} "${name}": ${why}`, { name, group: resource.group, kind: resource.kind });
}

/** Preconditions (the registry store checks them before deleting). */
export const preconditions: AdmissionStep = {
  name: "Preconditions",
  admitDelete: (write) => {
    const pre = write.preconditions;
    const stored = write.oldObject?.metadata;
    if (pre?.uid && pre.uid !== stored?.uid) {
      throw preconditionFailed(write.resource, write.name, `the UID in the precondition (${pre.uid}) does not match the UID in record (${stored?.uid ?? ""}). The object might have been deleted and then recreated`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== stored?.resourceVersion) {
      throw preconditionFailed(write.resource, write.name, `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${stored?.resourceVersion ?? ""}). The object might have been modified`);
    }
  },
};

/** The kind's refusal to delete the object (403), if it refuses. */
export const refusedByKind: AdmissionStep = {
  name: "Protected",
  admitDelete: (write) => {
    const refusal = write.kind.refuseDelete?.(write.name);
    if (refusal) throw refusal;
  },
};
