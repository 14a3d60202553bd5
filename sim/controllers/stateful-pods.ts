/**
 * What a StatefulSet does next, as kube-controller-manager's StatefulSet controller decides
 * (pkg/controller/statefulset/stateful_set_control.go): pods `<name>-<ordinal>` made in
 * order, each waiting for the one before to be Ready under `OrderedReady` (all at once
 * under `Parallel`), condemned ones removed from the highest ordinal down, and a changed
 * template rolled from the highest ordinal to the partition one pod at a time. Pure.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { controllerRef } from "../../protocol/kube/owner.ts";
import { templateHash } from "./deployment-revisions.ts";
import { REVISION_HASH_LABEL } from "./daemon-pods.ts";
import { obj, podReady, terminal, type Obj } from "./runtime.ts";

const STATEFUL_SET = { apiVersion: "apps/v1", kind: "StatefulSet" };
/** The label with a stateful pod's own name (apps.StatefulSetPodNameLabel). */
export const POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name";
/** The label with a stateful pod's ordinal (apps.PodIndexLabel). */
export const POD_INDEX_LABEL = "apps.kubernetes.io/pod-index";

const specOf = (sts: KubeObject): Obj => obj((sts as Obj).spec);

/** The label with a StatefulSet ControllerRevision's hash (ControllerRevisionHashLabel). */
export const STATEFUL_HASH_LABEL = "controller.kubernetes.io/hash";

/** The hash of the StatefulSet's current template. */
export function statefulTemplateHash(sts: KubeObject): string {
  return templateHash(obj(specOf(sts).template));
}

/** The revision name of the StatefulSet's current template (`<name>-<hash>`, its ControllerRevision's name). */
export function updateRevision(sts: KubeObject): string {
  return `${sts.metadata.name ?? ""}-${statefulTemplateHash(sts)}`;
}

/** The first ordinal (spec.ordinals.start, else 0). */
export function firstOrdinal(sts: KubeObject): number {
  return Number(obj(specOf(sts).ordinals).start ?? 0);
}

/** The ordinal of a pod named `<set>-<n>`, or undefined. */
export function ordinalOf(sts: KubeObject, pod: KubeObject): number | undefined {
  const prefix = `${sts.metadata.name ?? ""}-`;
  const name = pod.metadata.name ?? "";
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : undefined;
}

/** The pod at `ordinal`: the template, its stable name, hostname and subdomain, labelled with its revision. */
export function statefulPod(sts: KubeObject, ordinal: number): KubeObject {
  const template = obj(specOf(sts).template);
  const meta = obj(template.metadata);
  const name = `${sts.metadata.name ?? ""}-${ordinal}`;
  const serviceName = specOf(sts).serviceName;
  const labels = { ...(obj(meta.labels) as Record<string, string>), [REVISION_HASH_LABEL]: updateRevision(sts), [POD_NAME_LABEL]: name, [POD_INDEX_LABEL]: String(ordinal) };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: sts.metadata.namespace, labels, ...(meta.annotations ? { annotations: meta.annotations as Record<string, string> } : {}), ownerReferences: [controllerRef(sts, STATEFUL_SET)] },
    spec: { ...obj(template.spec), hostname: name, ...(typeof serviceName === "string" && serviceName !== "" ? { subdomain: serviceName } : {}) },
  } as KubeObject;
}

/** What to do now: the ordinals to create and the pods to delete. */
export interface StatefulPlan {
  readonly create: number[];
  readonly remove: KubeObject[];
}

const healthy = (pod: KubeObject | undefined): boolean => pod !== undefined && !pod.metadata.deletionTimestamp && !terminal(pod) && podReady(pod);

/** The next step towards `spec.replicas` pods at the update revision (one sync of updateStatefulSet). */
export function planStatefulSet(sts: KubeObject, pods: readonly KubeObject[]): StatefulPlan {
  const spec = specOf(sts);
  const replicas = Number(spec.replicas ?? 1);
  const start = firstOrdinal(sts);
  const parallel = spec.podManagementPolicy === "Parallel";
  const byOrdinal = new Map<number, KubeObject>();
  for (const pod of pods) {
    const ordinal = ordinalOf(sts, pod);
    if (ordinal !== undefined) byOrdinal.set(ordinal, pod);
  }
  const create: number[] = [];
  const remove: KubeObject[] = [];
  // Failed pods are deleted (and made again on a later sync).
  for (const pod of byOrdinal.values()) if (terminal(pod) && !pod.metadata.deletionTimestamp) remove.push(pod);
  if (remove.length > 0 && !parallel) return { create, remove };
  for (let ordinal = start; ordinal < start + replicas; ordinal++) {
    const pod = byOrdinal.get(ordinal);
    if (!pod) {
      create.push(ordinal);
      if (!parallel) return { create, remove };
    } else if (!parallel && !healthy(pod)) return { create, remove };
  }
  // Condemned pods: highest ordinal first; OrderedReady one at a time once the rest are Ready.
  const condemned = [...byOrdinal.entries()].filter(([ordinal]) => ordinal < start || ordinal >= start + replicas).sort(([a], [b]) => b - a);
  for (const [, pod] of condemned) {
    if (pod.metadata.deletionTimestamp) {
      if (!parallel) return { create, remove };
      continue;
    }
    remove.push(pod);
    if (!parallel) return { create, remove };
  }
  if (condemned.length > 0 || create.length > 0) return { create, remove };
  return { create, remove: rollingUpdate(sts, byOrdinal, start, replicas) };
}

/** RollingUpdate: the highest ordinal at or above the partition still at an old revision, once every pod is Ready. */
function rollingUpdate(sts: KubeObject, byOrdinal: ReadonlyMap<number, KubeObject>, start: number, replicas: number): KubeObject[] {
  const strategy = obj(specOf(sts).updateStrategy);
  if (strategy.type === "OnDelete") return [];
  const partition = Number(obj(strategy.rollingUpdate).partition ?? 0);
  const revision = updateRevision(sts);
  for (let ordinal = start + replicas - 1; ordinal >= start + partition; ordinal--) {
    const pod = byOrdinal.get(ordinal);
    if (!healthy(pod)) return [];
    if (pod && pod.metadata.labels?.[REVISION_HASH_LABEL] !== revision) return [pod];
  }
  return [];
}

/** StatefulSetStatus as computeReplicaStatus and completeRollingUpdate write it. */
export function statefulSetStatus(sts: KubeObject, pods: readonly KubeObject[]): Obj {
  const before = obj((sts as Obj).status);
  const update = updateRevision(sts);
  let current = typeof before.currentRevision === "string" && before.currentRevision !== "" ? before.currentRevision : update;
  const created = pods.filter((p) => typeof obj((p as Obj).status).phase === "string");
  const live = created.filter((p) => !p.metadata.deletionTimestamp);
  const ready = created.filter(podReady).length;
  const updated = live.filter((p) => p.metadata.labels?.[REVISION_HASH_LABEL] === update).length;
  let currentReplicas = live.filter((p) => p.metadata.labels?.[REVISION_HASH_LABEL] === current).length;
  const replicas = created.length;
  const strategy = obj(specOf(sts).updateStrategy);
  if (strategy.type !== "OnDelete" && updated === replicas && ready === replicas && replicas === Number(specOf(sts).replicas ?? 1)) {
    current = update;
    currentReplicas = updated;
  }
  // `replicas` and `availableReplicas` always; the other counts and revisions `omitempty` (null in a merge patch).
  const count = (n: number): number | null => (n > 0 ? n : null);
  return {
    observedGeneration: sts.metadata.generation ?? 1,
    replicas,
    readyReplicas: count(ready),
    currentReplicas: count(currentReplicas),
    updatedReplicas: count(updated),
    currentRevision: current,
    updateRevision: update,
    collisionCount: 0,
    availableReplicas: ready,
  };
}
