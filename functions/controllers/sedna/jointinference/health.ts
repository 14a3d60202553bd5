import type { KubeObject } from "../../../../protocol/index.ts";

/** How one worker's Deployment is doing. */
export type WorkerHealth = "available" | "progressing" | "failed" | "missing";

interface DeploymentStatus {
  readonly observedGeneration?: number;
  readonly availableReplicas?: number;
  readonly unavailableReplicas?: number;
  readonly conditions?: readonly { readonly type?: string; readonly status?: string; readonly reason?: string }[];
}

function statusOf(deployment: KubeObject): DeploymentStatus {
  const status = deployment["status"];
  return typeof status === "object" && status !== null ? (status as DeploymentStatus) : {};
}

/**
 * A worker's health from its Deployment's `availableReplicas` and `observedGeneration`
 * (never from the order of its conditions): available as soon as one replica is; failed
 * only when the controller has seen the current generation and reports the rollout
 * stuck (Progressing=False or ReplicaFailure=True) with nothing available. A Deployment
 * that is merely new is progressing, and every state can recover.
 */
export function workerHealth(deployment: KubeObject | undefined): WorkerHealth {
  if (!deployment) return "missing";
  const status = statusOf(deployment);
  if ((status.availableReplicas ?? 0) >= 1) return "available";
  const generation = deployment.metadata.generation;
  const current = status.observedGeneration !== undefined && generation !== undefined && status.observedGeneration >= generation;
  const stuck = (status.conditions ?? []).some(
    (c) => (c.type === "Progressing" && c.status === "False") || (c.type === "ReplicaFailure" && c.status === "True"),
  );
  return current && stuck ? "failed" : "progressing";
}

/** The replicas a Deployment reports available (JI `status.active` sums them). */
export function availableReplicas(deployment: KubeObject | undefined): number {
  return deployment ? (statusOf(deployment).availableReplicas ?? 0) : 0;
}

/** The replicas of a failed Deployment that are not available (at least 1). */
export function failedReplicas(deployment: KubeObject | undefined): number {
  return deployment ? Math.max(1, statusOf(deployment).unavailableReplicas ?? 0) : 0;
}
