/** scheduling.k8s.io/v1 PriorityClass: typed decoding, defaults, validation, the system classes kept (sim/pipeline/priority.ts). */
import { checkPriorityClassTypes, defaultPriorityClass, priorityClassCauses, systemClassDeletion } from "../../pipeline/priority.ts";
import { builtinKind, type BuiltinKind } from "./kind.ts";

/** PriorityClasses. */
export const PRIORITY_CLASS: BuiltinKind = builtinKind(
  { group: "scheduling.k8s.io", version: "v1", kind: "PriorityClass", plural: "priorityclasses", namespaced: false, shortNames: ["pc"] },
  {
    checkDecoded: checkPriorityClassTypes,
    defaultCreate: defaultPriorityClass,
    defaultUpdate: defaultPriorityClass,
    validate: (priorityClass, old) => priorityClassCauses(priorityClass, old),
    refuseDelete: systemClassDeletion,
  },
);
