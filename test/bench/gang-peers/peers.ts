/**
 * The three gang schedulers of the side-by-side bench and how each is told a group: the
 * same group (name, size) becomes, per peer, the labels and fields its users write.
 *
 * - `edgeloop`: the Fluxnetes labels (`fluxnetes.group-name`, `fluxnetes.group-size`),
 *   `schedulerName: fluxnetes`; no group object.
 * - `coscheduling`: a `scheduling.x-k8s.io/v1alpha1` PodGroup (minMember = size), pods
 *   labelled `scheduling.x-k8s.io/pod-group`, `schedulerName` of the coscheduling profile.
 * - `native`: a `scheduling.k8s.io/v1alpha2` PodGroup (`schedulingPolicy.gang.minCount` =
 *   size, KEP-4671 in Kubernetes 1.36), pods naming it in `spec.schedulingGroup`, the
 *   default scheduler.
 *
 * Every pod also carries the bench's own group labels (`./observe.ts`), which no scheduler reads.
 */
import type { KubeObject, TypeRef } from "../../../protocol/index.ts";
import { COSCHEDULING_SCHEDULER } from "./coscheduling.ts";
import { BENCH_GROUP_LABEL, BENCH_SIZE_LABEL } from "./observe.ts";

/** A peer's name, as its figures are prefixed. */
export type PeerName = "edgeloop" | "coscheduling" | "native";

/** Every peer, in the order the bench runs them (edgeloop and native share a control plane; coscheduling has its own). */
export const PEERS: readonly PeerName[] = ["edgeloop", "native", "coscheduling"];

/** A group of a scenario: `size` pods asking `cpu` millicores each, running `runSeconds` (undefined: until deleted). */
export interface GroupSpec {
  readonly name: string;
  readonly size: number;
  readonly cpuMillis: number;
  readonly runSeconds?: number;
}

export const COSCHEDULING_POD_GROUP: TypeRef = { apiVersion: "scheduling.x-k8s.io/v1alpha1", kind: "PodGroup" };
export const NATIVE_POD_GROUP: TypeRef = { apiVersion: "scheduling.k8s.io/v1alpha2", kind: "PodGroup" };

/** The object that declares `group` to the peer, created before its pods (as a job controller does); none for edgeloop. */
export function groupObject(peer: PeerName, group: GroupSpec, namespace: string): KubeObject | undefined {
  const metadata = { name: group.name, namespace };
  if (peer === "coscheduling") return { ...COSCHEDULING_POD_GROUP, metadata, spec: { minMember: group.size } } as KubeObject;
  if (peer === "native") return { ...NATIVE_POD_GROUP, metadata, spec: { schedulingPolicy: { gang: { minCount: group.size } } } } as KubeObject;
  return undefined;
}

/** The container every pod runs: `sleep N` ends after N seconds under kwok (cluster/kwok-stages.yaml), as on a kubelet. */
function podSpec(group: GroupSpec): Record<string, unknown> {
  const seconds = group.runSeconds;
  return {
    terminationGracePeriodSeconds: 0,
    restartPolicy: "Never",
    // The gang scheduler's backfill reads a group's end from it; the others ignore it.
    ...(seconds === undefined ? {} : { activeDeadlineSeconds: seconds }),
    containers: [{ name: "main", image: "busybox", command: ["sleep", String(seconds ?? 3600)], resources: { requests: { cpu: `${group.cpuMillis}m`, memory: "64Mi" } } }],
  };
}

/** Pod `index` of `group`, declared to `peer`. */
export function groupPod(peer: PeerName, group: GroupSpec, index: number, namespace: string): KubeObject {
  const labels: Record<string, string> = { [BENCH_GROUP_LABEL]: group.name, [BENCH_SIZE_LABEL]: String(group.size) };
  const spec = podSpec(group);
  if (peer === "edgeloop") {
    Object.assign(labels, { "fluxnetes.group-name": group.name, "fluxnetes.group-size": String(group.size) });
    spec.schedulerName = "fluxnetes";
  } else if (peer === "coscheduling") {
    labels["scheduling.x-k8s.io/pod-group"] = group.name;
    spec.schedulerName = COSCHEDULING_SCHEDULER;
  } else {
    spec.schedulingGroup = { podGroupName: group.name };
  }
  return { apiVersion: "v1", kind: "Pod", metadata: { name: `${group.name}-${index}`, namespace, labels }, spec } as KubeObject;
}

/** A pod of no group for the peer's scheduler (the sentinel that shows its queue was worked through); undefined for edgeloop, which places gangs only. */
export function plainPod(peer: PeerName, name: string, namespace: string, cpuMillis: number): KubeObject | undefined {
  if (peer === "edgeloop") return undefined;
  const spec = { ...podSpec({ name, size: 1, cpuMillis }), ...(peer === "coscheduling" ? { schedulerName: COSCHEDULING_SCHEDULER } : {}) };
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace }, spec } as KubeObject;
}

/**
 * The pods `[from, to)` of every group in the order they are created: group by group, or
 * interleaved (pod 0 of every group, then pod 1 of every group, …) as two job controllers
 * creating their pods at once do.
 */
export function creationOrder(groups: readonly GroupSpec[], interleaved: boolean, from = 0, to?: number): { group: GroupSpec; index: number }[] {
  const range = (g: GroupSpec): number[] => Array.from({ length: Math.max(0, Math.min(to ?? g.size, g.size) - from) }, (_, i) => from + i);
  if (!interleaved) return groups.flatMap((group) => range(group).map((index) => ({ group, index })));
  const longest = Math.max(0, ...groups.map((g) => range(g).length));
  return Array.from({ length: longest }, (_, i) => groups.flatMap((group) => (i < range(group).length ? [{ group, index: from + i }] : []))).flat();
}
