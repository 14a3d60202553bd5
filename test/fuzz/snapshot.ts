/**
 * What "nothing changed" means for the bad-input suite: every object of every kind the
 * sim serves, by key, with its resourceVersion and a fingerprint of what it holds.
 *
 * Excluded, because the system writes them on its own whatever the input: Events (the
 * relay records refusals as Events, which is the point of them), Leases (leader election
 * renews every few seconds), and a Node's heartbeat (`lastHeartbeatTime` of its
 * conditions, renewed every 10 s by the sim's kubelet). An object whose resourceVersion
 * moved but whose fingerprint (without resourceVersion, managedFields and heartbeats) did
 * not counts as unchanged: that is a heartbeat. The stack runs a workload of every
 * controller family, converged and held still before the suite starts (its controllers
 * have nothing left to do), so anything else that moves was moved by the suite's input.
 */
import { createHash } from "node:crypto";
import type { KubeObject } from "../../protocol/index.ts";
import type { SimCluster } from "../../sim/index.ts";

/** Kinds never compared (group/plural). */
export const EXCLUDED_RESOURCES: ReadonlySet<string> = new Set(["/events", "events.k8s.io/events", "coordination.k8s.io/leases"]);

/** One object as remembered: its resourceVersion and a fingerprint of its content. */
export interface Remembered {
  readonly resourceVersion: string;
  readonly fingerprint: string;
}

/** Every object by `group/plural/namespace/name`. */
export type ClusterSnapshot = ReadonlyMap<string, Remembered>;

/** The content of an object that input could change: without resourceVersion, managedFields and heartbeats. */
export function fingerprint(object: KubeObject): string {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = object.metadata as KubeObject["metadata"] & { managedFields?: unknown };
  const status = (object as { status?: unknown }).status;
  const withoutBeats = object.kind === "Node" && typeof status === "object" && status !== null ? withoutHeartbeats(status as Record<string, unknown>) : status;
  const text = JSON.stringify({ ...object, metadata, ...(status === undefined ? {} : { status: withoutBeats }) });
  return createHash("sha256").update(text).digest("hex");
}

function withoutHeartbeats(status: Record<string, unknown>): Record<string, unknown> {
  const conditions = status.conditions;
  if (!Array.isArray(conditions)) return status;
  return { ...status, conditions: conditions.map((c: unknown) => (typeof c === "object" && c !== null ? { ...(c as Record<string, unknown>), lastHeartbeatTime: undefined } : c)) };
}

/** Remembers every object the sim holds, but the excluded kinds. */
export function snapshotCluster(cluster: SimCluster): ClusterSnapshot {
  const out = new Map<string, Remembered>();
  for (const resource of cluster.registry.all()) {
    const kind = `${resource.group}/${resource.plural}`;
    if (EXCLUDED_RESOURCES.has(kind)) continue;
    for (const stored of cluster.select(resource)) {
      const meta = stored.object.metadata;
      out.set(`${kind}/${meta.namespace ?? ""}/${meta.name ?? ""}`, { resourceVersion: meta.resourceVersion ?? "", fingerprint: fingerprint(stored.object) });
    }
  }
  return out;
}

/** One difference between two snapshots. */
export interface Change {
  readonly key: string;
  readonly how: "created" | "deleted" | "modified";
}

/** What differs from `before` to `after`: objects created, deleted, or whose content changed. */
export function diffSnapshots(before: ClusterSnapshot, after: ClusterSnapshot): Change[] {
  const changes: Change[] = [];
  for (const [key, was] of before) {
    const now = after.get(key);
    if (!now) changes.push({ key, how: "deleted" });
    else if (now.resourceVersion !== was.resourceVersion && now.fingerprint !== was.fingerprint) changes.push({ key, how: "modified" });
  }
  for (const key of after.keys()) if (!before.has(key)) changes.push({ key, how: "created" });
  return changes.sort((a, b) => a.key.localeCompare(b.key));
}
