/**
 * Pod writes on behalf of a workload controller, each recorded as an Event on the owner
 * as upstream's RealPodControl does: `SuccessfulCreate` "Created pod: x",
 * `SuccessfulDelete` "Deleted pod: x", and the Warnings `FailedCreate` "Error creating: …"
 * and `FailedDelete` "Error deleting: …" with the API's error message.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { ApiError, type Cluster } from "../contract.ts";
import { recordEvent, type EventSource } from "./events.ts";
import { arr, isNotFound, obj } from "./runtime.ts";

const POD = { apiVersion: "v1", kind: "Pod" };

/** The outcome of a pod create. */
export type PodCreate = { readonly ok: true; readonly pod: KubeObject } | { readonly ok: false; readonly error: unknown };

/** The error's message as `err.Error()` would print it. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A refusal because the namespace is terminating: every later create fails too, so upstream records nothing. */
export function namespaceTerminating(error: unknown): boolean {
  return error instanceof ApiError && arr(obj(error.details).causes).some((c) => c.reason === "NamespaceTerminating");
}

/** Creates `pod` for `owner`; a refusal is returned, not thrown. */
export async function createPod(cluster: Cluster, owner: KubeObject, pod: KubeObject, source: EventSource): Promise<PodCreate> {
  try {
    const created = await cluster.create(pod);
    await recordEvent(cluster, owner, "Normal", "SuccessfulCreate", `Created pod: ${created.metadata.name ?? ""}`, source);
    return { ok: true, pod: created };
  } catch (error) {
    if (!namespaceTerminating(error)) await recordEvent(cluster, owner, "Warning", "FailedCreate", `Error creating: ${errorMessage(error)}`, source);
    return { ok: false, error };
  }
}

/** Deletes `pod` of `owner`; true when it is deleted (or already gone), false when the API refused. */
export async function deletePod(cluster: Cluster, owner: KubeObject, pod: KubeObject, source: EventSource): Promise<boolean> {
  const name = pod.metadata.name ?? "";
  try {
    await cluster.delete(POD, pod.metadata.namespace, name);
  } catch (error) {
    if (isNotFound(error)) return true;
    await recordEvent(cluster, owner, "Warning", "FailedDelete", `Error deleting: ${errorMessage(error)}`, source);
    return false;
  }
  await recordEvent(cluster, owner, "Normal", "SuccessfulDelete", `Deleted pod: ${name}`, source);
  return true;
}
