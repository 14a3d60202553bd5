/**
 * The Priority admission plugin (its rules: sim/pipeline/priority.ts): on pods it
 * resolves the priority class on create and keeps the stored priority on update; on
 * PriorityClasses it validates, after the kind's own validation, that one class at most
 * is the global default.
 */
import type { KubeObject } from "../../../protocol/index.ts";
import { admitPodPriority, globalDefaultConflict, isPriorityClass, keepPodPriority, PRIORITY_CLASSES } from "../../pipeline/priority.ts";
import type { Write } from "../write.ts";
import type { AdmissionStep } from "./step.ts";

/** The stored PriorityClasses (what the plugin resolves pods with). */
function classes(write: Write): KubeObject[] {
  return write.server.store.list(PRIORITY_CLASSES).map((s) => s.object);
}

/** Priority on pods (not their subresources). */
export const podPriority: AdmissionStep = {
  name: "Priority",
  admit: (draft, write) => {
    if (write.resource.group !== "" || write.resource.kind !== "Pod" || write.subresource !== "") return draft;
    if (write.operation === "UPDATE") return write.oldObject ? keepPodPriority(draft, write.oldObject) : draft;
    // The plugin names a pod by its generateName while the name is still to come.
    return admitPodPriority(draft, classes(write), write.body?.metadata.name || write.body?.metadata.generateName || write.name);
  },
};

/** Priority's validation of PriorityClass creates and updates: one global default at most (403). */
export const oneGlobalDefault: AdmissionStep = {
  name: "Priority (validation)",
  admit: (draft, write) => {
    if (!isPriorityClass(write.resource) || write.subresource !== "" || write.operation === "DELETE") return draft;
    const error = globalDefaultConflict(draft, write.operation, classes(write));
    if (error) throw error;
    return draft;
  },
};
