/**
 * The Deployment controller: one ReplicaSet per pod template (named by its
 * pod-template-hash), rolled with maxSurge/maxUnavailable (or Recreate), and the
 * Deployment's status: observedGeneration, replicas, updated/ready/available, conditions.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { controllerOf, controllerRef } from "../../protocol/kube/owner.ts";
import { stableJson } from "../api/objects.ts";
import { DESIRED_REPLICAS, expiredReplicaSets, findNewReplicaSet, HASH_LABEL, MAX_REPLICAS, newReplicaSetAnnotations, nextRevision, REVISION, templateHash } from "./deployment-revisions.ts";
import type { Cluster, ClusterEvent, SimController } from "../contract.ts";
import { recordEvent } from "./events.ts";
import { arr, ignoreNotFound, keyOf, KeyQueue, now, obj, splitNsKey, type Obj } from "./runtime.ts";

const DEPLOYMENT = { apiVersion: "apps/v1", kind: "Deployment" };
const RS = { apiVersion: "apps/v1", kind: "ReplicaSet" };

/** `25%` of `total`, rounded up (surge) or down (unavailable); plain numbers as they are. */
export function resolvePercent(value: unknown, total: number, roundUp: boolean): number {
  if (typeof value === "number") return value;
  const m = /^(\d+)%$/.exec(String(value ?? "25%"));
  if (!m) return Number(value) || 0;
  const exact = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

const replicasOf = (o: KubeObject): number => Number(obj((o as Obj).spec).replicas ?? 0);
const statusNumber = (o: KubeObject, field: string): number => Number(obj((o as Obj).status)[field] ?? 0);

/** The Deployment controller as a sim controller. */
export function deploymentController(): SimController {
  const owned = new Map<string, Map<string, KubeObject>>();
  let cluster: Cluster | undefined;
  const unwatch: (() => void)[] = [];
  const queue = new KeyQueue((key) => sync(key));

  /** Scales one ReplicaSet, recorded on the Deployment as upstream words it. */
  async function scale(deployment: KubeObject, rs: KubeObject, replicas: number): Promise<void> {
    const from = replicasOf(rs);
    if (!cluster || from === replicas) return;
    const scaled = await ignoreNotFound(cluster.patch(RS, rs.metadata.namespace, rs.metadata.name ?? "", { spec: { replicas } }, "merge"));
    if (!scaled) return;
    await recordEvent(cluster, deployment, "Normal", "ScalingReplicaSet", `Scaled ${from < replicas ? "up" : "down"} replica set ${rs.metadata.name ?? ""} from ${from} to ${replicas}`, "deployment-controller");
  }

  async function sync(key: string): Promise<void> {
    if (!cluster) return;
    const [namespace, name] = splitNsKey(key);
    const deployment = await cluster.find(DEPLOYMENT, namespace, name);
    if (!deployment || deployment.metadata.deletionTimestamp) return;
    const spec = obj((deployment as Obj).spec);
    const want = Number(spec.replicas ?? 1);
    const template = obj(spec.template);
    const sets = [...(owned.get(deployment.metadata.uid ?? "")?.values() ?? [])].filter((rs) => !rs.metadata.deletionTimestamp);
    let current = findNewReplicaSet(template, sets);
    const old = sets.filter((rs) => rs !== current);
    const revision = nextRevision(old);
    const hash = current?.metadata.labels?.[HASH_LABEL] ?? templateHash(template);
    const recreate = obj(spec.strategy).type === "Recreate";
    const rolling = obj(obj(spec.strategy).rollingUpdate);
    let surge = resolvePercent(rolling.maxSurge, want, true);
    let unavailable = resolvePercent(rolling.maxUnavailable, want, false);
    if (surge === 0 && unavailable === 0) unavailable = 1;
    if (recreate) [surge, unavailable] = [0, want];

    if (!current) {
      if (recreate && old.some((rs) => replicasOf(rs) > 0 || statusNumber(rs, "replicas") > 0)) {
        for (const rs of old) await scale(deployment, rs, 0);
        return;
      }
      const templateMeta = obj(template.metadata);
      const labels = { ...(obj(templateMeta.labels) as Record<string, string>), [HASH_LABEL]: hash };
      const oldTotal = old.reduce((n, rs) => n + replicasOf(rs), 0);
      const initial = recreate ? want : Math.max(0, Math.min(want, want + surge - oldTotal));
      current = await cluster.create({
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        metadata: {
          name: `${name}-${hash}`,
          namespace,
          labels,
          annotations: { ...newReplicaSetAnnotations(deployment.metadata.annotations ?? {}, {}, revision), [DESIRED_REPLICAS]: String(want), [MAX_REPLICAS]: String(want + surge) },
          ownerReferences: [controllerRef(deployment, DEPLOYMENT)],
        },
        spec: { replicas: initial, selector: { matchLabels: { ...(obj(obj(spec.selector).matchLabels) as Record<string, string>), [HASH_LABEL]: hash } }, template: { ...template, metadata: { ...templateMeta, labels } } },
      } as KubeObject);
      if (initial > 0) await recordEvent(cluster, deployment, "Normal", "ScalingReplicaSet", `Scaled up replica set ${current.metadata.name ?? ""} from 0 to ${initial}`, "deployment-controller");
    } else {
      current = await reviseCurrent(deployment, current, revision);
      const oldTotal = old.reduce((n, rs) => n + replicasOf(rs), 0);
      await scale(deployment, current, Math.max(replicasOf(current), Math.min(want, want + surge - oldTotal)));
      if (replicasOf(current) > want) await scale(deployment, current, want);
    }
    // Old sets shrink as far as availability allows.
    const available = sets.reduce((n, rs) => n + statusNumber(rs, "availableReplicas"), 0);
    let removable = Math.max(0, available - (want - unavailable));
    for (const rs of old.sort((a, b) => (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? ""))) {
      const unhealthy = replicasOf(rs) - statusNumber(rs, "availableReplicas");
      const cut = Math.min(replicasOf(rs), Math.max(0, unhealthy) + removable);
      removable -= Math.max(0, cut - Math.max(0, unhealthy));
      await scale(deployment, rs, replicasOf(rs) - cut);
    }
    const complete = await writeStatus(deployment, current, sets, want, unavailable);
    // The Deployment carries its new ReplicaSet's revision (kubectl rollout history/undo read it).
    const currentRevision = current.metadata.annotations?.[REVISION];
    if (currentRevision !== undefined && deployment.metadata.annotations?.[REVISION] !== currentRevision) {
      await ignoreNotFound(cluster.patch(DEPLOYMENT, namespace, name, { metadata: { annotations: { [REVISION]: currentRevision } } }, "merge"));
    }
    // Old revisions beyond revisionHistoryLimit go once a rollout is complete.
    if (complete) for (const rs of expiredReplicaSets(old, Number(spec.revisionHistoryLimit ?? 10))) await ignoreNotFound(cluster.delete(RS, namespace, rs.metadata.name ?? ""));
  }

  /** The new ReplicaSet takes the next revision (an old one brought back by a rollback) and the Deployment's annotations. */
  async function reviseCurrent(deployment: KubeObject, current: KubeObject, revision: number): Promise<KubeObject> {
    if (!cluster) return current;
    const before = current.metadata.annotations ?? {};
    const annotations = newReplicaSetAnnotations(deployment.metadata.annotations ?? {}, before, revision);
    if (stableJson(annotations) === stableJson(before)) return current;
    return (await ignoreNotFound(cluster.patch(RS, current.metadata.namespace, current.metadata.name ?? "", { metadata: { annotations } }, "merge"))) ?? current;
  }

  /** Writes the Deployment's status; true when the rollout is complete. */
  async function writeStatus(deployment: KubeObject, current: KubeObject, sets: readonly KubeObject[], want: number, unavailable: number): Promise<boolean> {
    if (!cluster) return false;
    const all = [...sets.filter((rs) => rs.metadata.uid !== current.metadata.uid), current];
    const replicas = all.reduce((n, rs) => n + statusNumber(rs, "replicas"), 0);
    const ready = all.reduce((n, rs) => n + statusNumber(rs, "readyReplicas"), 0);
    const available = all.reduce((n, rs) => n + statusNumber(rs, "availableReplicas"), 0);
    const updated = statusNumber(current, "replicas");
    const complete = updated === want && replicas === want && available >= want;
    const before = obj((deployment as Obj).status);
    const previous = arr(before.conditions);
    const condition = (type: string, status: string, reason: string, message: string): Obj => {
      const old = previous.find((c) => c.type === type);
      const stamp = now();
      return { type, status, reason, message, lastUpdateTime: old?.status === status && old.reason === reason ? old.lastUpdateTime : stamp, lastTransitionTime: old?.status === status ? old.lastTransitionTime : stamp };
    };
    // DeploymentStatus's counts are `omitempty` (a zero is absent, null in the patch); terminatingReplicas is a pointer, always written.
    const count = (n: number): number | null => (n > 0 ? n : null);
    const status = {
      observedGeneration: deployment.metadata.generation ?? 1,
      replicas: count(replicas),
      updatedReplicas: count(updated),
      readyReplicas: count(ready),
      availableReplicas: count(available),
      unavailableReplicas: count(replicas - available),
      terminatingReplicas: 0,
      conditions: [
        available >= want - unavailable ? condition("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.") : condition("Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability."),
        complete
          ? condition("Progressing", "True", "NewReplicaSetAvailable", `ReplicaSet "${current.metadata.name ?? ""}" has successfully progressed.`)
          : condition("Progressing", "True", "ReplicaSetUpdated", `ReplicaSet "${current.metadata.name ?? ""}" is progressing.`),
      ],
    };
    const comparable = (s: Obj): string => stableJson({ ...Object.fromEntries(Object.entries(s).filter(([, v]) => v !== null)), conditions: arr(s.conditions).map((c) => [c.type, c.status, c.reason]) });
    if (comparable(status) !== comparable(before)) {
      await ignoreNotFound(cluster.patch(DEPLOYMENT, deployment.metadata.namespace, deployment.metadata.name ?? "", { status }, "merge", { subresource: "status" }));
    }
    return complete;
  }

  function onReplicaSet(event: ClusterEvent): void {
    const owner = controllerOf(event.object);
    if (owner?.kind !== "Deployment") return;
    let sets = owned.get(owner.uid);
    if (!sets) owned.set(owner.uid, (sets = new Map()));
    if (event.type === "DELETED") sets.delete(keyOf(event.object));
    else sets.set(keyOf(event.object), event.object);
    queue.add(`${event.object.metadata.namespace ?? ""}/${owner.name}`);
  }

  function onDeployment(event: ClusterEvent): void {
    if (event.type === "DELETED") owned.delete(event.object.metadata.uid ?? "");
    else queue.add(keyOf(event.object));
  }

  return {
    name: "deployment-controller",
    start(c: Cluster): void {
      cluster = c;
      unwatch.push(c.watch(RS, onReplicaSet), c.watch(DEPLOYMENT, onDeployment));
    },
    async stop(): Promise<void> {
      for (const u of unwatch) u();
      await queue.stop();
    },
  };
}
