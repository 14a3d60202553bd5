/**
 * Names of a job's pods and Services. A pod and its Service share one name, so every name
 * is a DNS-1035 label (a Service's rule: at most 63 characters, a letter first, no dots)
 * for any valid job name, including a 253-character DNS subdomain with dots: longer or
 * dotted names are cut and made unique with a hash (`boundedName`).
 */
import { boundedName } from "../../kit/names.ts";
import type { ReplicaType } from "./labels.ts";

/** `<job>-coordinator`: the coordinator's pod and Service. */
export function coordinatorName(jobName: string): string {
  return boundedName(jobName, "coordinator", undefined, "dns1035");
}

/** `<job>-<type>-<suffix>`: one replica's pod and Service (`suffix` is a short DNS label, e.g. random). */
export function replicaName(jobName: string, type: ReplicaType, suffix: string): string {
  return boundedName(jobName, `${type}-${suffix}`, undefined, "dns1035");
}
