/** Test support: nodes and pods as the API server would hold them. */
import type { KubeObject } from "../../../protocol/index.ts";
import { EDGE_WORKER } from "./names.ts";

/** Options of a test node. */
export interface NodeOptions {
  readonly edge?: boolean;
  readonly annotations?: Record<string, string>;
  readonly labels?: Record<string, string>;
  /** The Ready condition's status (default True) and since when (RFC 3339). */
  readonly ready?: "True" | "False" | "Unknown";
  readonly since?: string;
  /** The edge hub's `Autonomy` condition. */
  readonly autonomy?: "True" | "False" | "Unknown";
}

/** A Node. */
export function node(name: string, options: NodeOptions = {}): KubeObject {
  const conditions: Record<string, unknown>[] = [{ type: "Ready", status: options.ready ?? "True", lastTransitionTime: options.since ?? "2026-01-01T00:00:00Z" }];
  if (options.autonomy !== undefined) conditions.push({ type: "Autonomy", status: options.autonomy, reason: options.autonomy === "Unknown" ? "cache failed" : "autonomy enabled successfully", message: options.autonomy === "Unknown" ? "failed keys: pods/default/a" : "" });
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, uid: `uid-${name}`, labels: { ...(options.edge === false ? {} : { [EDGE_WORKER]: "true" }), ...options.labels }, annotations: { ...options.annotations } },
    status: { conditions },
  } as KubeObject;
}
