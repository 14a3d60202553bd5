/**
 * The TTL-after-finished controller: a Job with `spec.ttlSecondsAfterFinished` is deleted
 * that many seconds after its Complete or Failed condition became True, with foreground
 * propagation and a uid precondition, as upstream's ttlafterfinished controller does.
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { Cluster, ClusterEvent, SimController } from "../contract.ts";
import { trueCondition } from "./job/conditions.ts";
import { ignoreNotFound, keyOf, KeyQueue, obj, splitNsKey, type Obj } from "./runtime.ts";

const JOB = { apiVersion: "batch/v1", kind: "Job" };

/** When a finished Job with a TTL expires (ms since epoch), or undefined when it never does (yet). */
export function expiresAt(job: KubeObject): number | undefined {
  if (job.metadata.deletionTimestamp) return undefined;
  const spec = obj((job as Obj).spec);
  const ttl = spec.ttlSecondsAfterFinished;
  if (typeof ttl !== "number") return undefined;
  const conditions = obj((job as Obj).status).conditions;
  const done = trueCondition(conditions, "Complete") ?? trueCondition(conditions, "Failed");
  const finishedAt = Date.parse(String(done?.lastTransitionTime ?? ""));
  return Number.isFinite(finishedAt) ? finishedAt + ttl * 1000 : undefined;
}

/** The TTL-after-finished controller as a sim controller. */
export function ttlAfterFinishedController(): SimController {
  let cluster: Cluster | undefined;
  let unwatch: (() => void) | undefined;
  const queue = new KeyQueue((key) => process(key));

  async function process(key: string): Promise<void> {
    if (!cluster) return;
    const [namespace, name] = splitNsKey(key);
    // The TTL may have changed since the event: decide on the Job as it is now.
    const job = await cluster.find(JOB, namespace, name);
    const due = job ? expiresAt(job) : undefined;
    if (!job || due === undefined) return;
    if (Date.now() < due) return void queue.addAfter(key, due - Date.now());
    await ignoreNotFound(cluster.delete(JOB, namespace, name, { propagationPolicy: "Foreground", preconditions: { uid: job.metadata.uid ?? "" } }));
  }

  function onJob(event: ClusterEvent): void {
    if (event.type !== "DELETED" && expiresAt(event.object) !== undefined) queue.add(keyOf(event.object));
  }

  return {
    name: "ttl-after-finished-controller",
    start(c: Cluster): void {
      cluster = c;
      unwatch = c.watch(JOB, onJob);
    },
    async stop(): Promise<void> {
      unwatch?.();
      await queue.stop();
    },
  };
}
