/**
 * The StatefulSet controller: applies one step of the plan `stateful-pods.ts` makes
 * (ordered creation, scale-down from the highest ordinal, rolling update) and writes the
 * status kube-controller-manager writes, which `kubectl rollout status sts/x` reads. A
 * pod it deletes for an update or a failure is made again with the same name once gone.
 */
import type { Cluster, ClusterEvent, SimController } from "../contract.ts";
import { controllerRevision, CONTROLLER_REVISION, recordRevision } from "./controller-revisions.ts";
import { OwnedIndex, writeStatusIfChanged } from "./owned-index.ts";
import { createPod, deletePod } from "./podcontrol.ts";
import { FailureBackoff } from "./retry.ts";
import { keyOf, KeyQueue, splitNsKey } from "./runtime.ts";
import { planStatefulSet, STATEFUL_HASH_LABEL, statefulPod, statefulSetStatus, statefulTemplateHash } from "./stateful-pods.ts";

const STATEFUL_SET = { apiVersion: "apps/v1", kind: "StatefulSet" };
const POD = { apiVersion: "v1", kind: "Pod" };
const SOURCE = "statefulset-controller";

/** The StatefulSet controller as a sim controller. */
export function statefulSetController(): SimController {
  const owned = new OwnedIndex("StatefulSet");
  let cluster: Cluster | undefined;
  const unwatch: (() => void)[] = [];
  const failures = new FailureBackoff();
  const revisions = new OwnedIndex("StatefulSet");
  const queue = new KeyQueue((key) => sync(key));

  async function sync(key: string): Promise<void> {
    if (!cluster) return;
    const [namespace, name] = splitNsKey(key);
    const sts = await cluster.find(STATEFUL_SET, namespace, name);
    if (!sts || sts.metadata.deletionTimestamp) return;
    const pods = owned.of(sts.metadata.uid ?? "");
    await recordRevision(cluster, revisions, controllerRevision(sts, STATEFUL_SET, statefulTemplateHash(sts), STATEFUL_HASH_LABEL, 0), sts.metadata.uid ?? "");
    const plan = planStatefulSet(sts, pods);
    let refused = false;
    for (const ordinal of plan.create) if (!(await createPod(cluster, sts, statefulPod(sts, ordinal), SOURCE)).ok) refused = true;
    for (const pod of plan.remove) await deletePod(cluster, sts, pod, SOURCE);
    if (refused) queue.addAfter(key, failures.next(key));
    else failures.forget(key);
    await writeStatusIfChanged(cluster, STATEFUL_SET, sts, statefulSetStatus(sts, pods));
  }

  /** A controlled object changed: its owner syncs. */
  function follow(index: OwnedIndex, event: ClusterEvent): void {
    const owner = index.observe(event);
    if (owner) queue.add(owner);
  }

  function onStatefulSet(event: ClusterEvent): void {
    if (event.type === "DELETED") {
      owned.forget(event.object.metadata.uid ?? "");
      revisions.forget(event.object.metadata.uid ?? "");
    } else queue.add(keyOf(event.object));
  }

  return {
    name: "statefulset-controller",
    start(c: Cluster): void {
      cluster = c;
      unwatch.push(
        c.watch(POD, (event) => follow(owned, event)),
        c.watch(STATEFUL_SET, onStatefulSet),
        c.watch(CONTROLLER_REVISION, (event) => follow(revisions, event)),
      );
    },
    async stop(): Promise<void> {
      for (const u of unwatch) u();
      await queue.stop();
    },
  };
}
