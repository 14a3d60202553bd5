/**
 * The Endpoints and EndpointSlice controllers: for each Service with a selector, the IPs
 * of its pods and its ports, with named target ports resolved against each pod's container
 * ports, written through the API as any client's writes (so admission webhooks on
 * endpoints and endpointslices see them, as on a cluster).
 *
 * Which pods and how, as upstream's (pkg/controller/endpoint/endpoints_controller.go,
 * pkg/controller/endpointslice and staging/src/k8s.io/endpointslice, v1.32):
 * `ShouldPodBeInEndpoints` leaves out terminal pods and pods without an IP, and pods being
 * deleted from Endpoints (unless the Service publishes not-ready addresses) but not from
 * EndpointSlices. In Endpoints (`addEndpointSubset`) a Ready pod is an address and any other
 * a notReadyAddress, unless `publishNotReadyAddresses`. In an EndpointSlice
 * (`podToEndpoint`) `serving` is the pod's Ready condition, `terminating` whether it is
 * being deleted, and `ready` is `serving && !terminating`, or true when the Service
 * publishes not-ready addresses.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { controllerRef } from "../../protocol/kube/owner.ts";
import { jsonEqual } from "../api/objects.ts";
import type { Cluster, ClusterEvent, SimController } from "../contract.ts";
import { arr, ignoreNotFound, keyOf, KeyQueue, obj, podReady, splitNsKey, terminal, type Obj } from "./runtime.ts";

const SERVICE = { apiVersion: "v1", kind: "Service" };
const POD = { apiVersion: "v1", kind: "Pod" };
const ENDPOINTS = { apiVersion: "v1", kind: "Endpoints" };
const SLICE = { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice" };

function selects(selector: Record<string, string>, pod: KubeObject): boolean {
  const labels = pod.metadata.labels ?? {};
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

function targetPort(port: Obj, pod: KubeObject): number | undefined {
  const target = port.targetPort ?? port.port;
  if (typeof target === "number") return target;
  for (const c of arr(obj((pod as Obj).spec).containers)) {
    const found = arr(c.ports).find((p) => p.name === target);
    if (found) return Number(found.containerPort);
  }
  return undefined;
}

/** `namespace\0key=value`: one label pair, within a namespace. */
function pairsOf(namespace: string | undefined, labels: Readonly<Record<string, string>> | undefined): string[] {
  return Object.entries(labels ?? {}).map(([k, v]) => `${namespace ?? ""}\0${k}=${v}`);
}

/** A multimap from label pair to object keys. */
class PairIndex {
  readonly #sets = new Map<string, Set<string>>();

  add(pair: string, key: string): void {
    let set = this.#sets.get(pair);
    if (!set) this.#sets.set(pair, (set = new Set()));
    set.add(key);
  }

  remove(pair: string, key: string): void {
    const set = this.#sets.get(pair);
    set?.delete(key);
    if (set?.size === 0) this.#sets.delete(pair);
  }

  get(pair: string): ReadonlySet<string> {
    return this.#sets.get(pair) ?? EMPTY;
  }
}
const EMPTY: ReadonlySet<string> = new Set();

/**
 * The Endpoints controller as a sim controller. Pods are indexed by label pair, and each
 * Service under one pair of its selector (the least crowded when it was added): a pod
 * event looks only at Services that may select it, a sync only at pods that may match,
 * instead of every Service times every pod (the sim's hottest path at 1,000 Services).
 */
export function endpointsController(): SimController {
  const services = new Map<string, KubeObject>();
  const pods = new Map<string, KubeObject>();
  const podsByPair = new PairIndex();
  const servicesByPair = new PairIndex();
  const servicePair = new Map<string, string>();
  let cluster: Cluster | undefined;
  const unwatch: (() => void)[] = [];
  const queue = new KeyQueue((key) => sync(key));

  /** The EndpointSlice of each Service: a generated name (`<service>-xxxxx`), found again by its service-name label. */
  const sliceNames = new Map<string, string>();
  async function sliceName(key: string, namespace: string, service: string): Promise<string | undefined> {
    const known = sliceNames.get(key);
    if (known !== undefined || !cluster) return known;
    const found = (await cluster.list(SLICE, { namespace, labelSelector: `kubernetes.io/service-name=${service}` })).items[0]?.metadata.name;
    if (found !== undefined) sliceNames.set(key, found);
    return found;
  }

  async function upsert(type: { apiVersion: string; kind: string }, desired: KubeObject, onCreate?: (created: KubeObject) => void): Promise<void> {
    if (!cluster) return;
    const current = desired.metadata.name === undefined ? undefined : await cluster.find(type, desired.metadata.namespace, desired.metadata.name);
    if (!current) {
      const created = await cluster.create(desired);
      onCreate?.(created);
      return;
    }
    const { metadata: _a, ...want } = desired as Obj;
    const { metadata: _b, ...have } = current as Obj;
    if (jsonEqual(want, have)) return;
    await cluster.update({ ...desired, metadata: { ...current.metadata, labels: desired.metadata.labels ?? {}, annotations: desired.metadata.annotations } } as KubeObject);
  }

  async function sync(key: string): Promise<void> {
    if (!cluster) return;
    const [namespace, name] = splitNsKey(key);
    const service = services.get(key);
    const selector = obj(obj((service as Obj | undefined)?.spec).selector) as Record<string, string>;
    if (!service || Object.keys(selector).length === 0) return;
    const ports = arr(obj((service as Obj).spec).ports);
    const publishNotReady = obj((service as Obj).spec).publishNotReadyAddresses === true;
    const candidates = smallest(pairsOf(namespace, selector).map((pair) => podsByPair.get(pair)));
    const byName = (a: KubeObject, b: KubeObject): number => (a.metadata.name ?? "").localeCompare(b.metadata.name ?? "");
    // ShouldPodBeInEndpoints(pod, includeTerminating): slices include pods being deleted.
    const members = [...candidates].flatMap((podKey) => pods.get(podKey) ?? []).filter((p) => !terminal(p) && obj((p as Obj).status).podIP && selects(selector, p)).sort(byName);
    const inEndpoints = members.filter((p) => publishNotReady || !p.metadata.deletionTimestamp);
    const address = (p: KubeObject): Obj => ({ ip: String(obj((p as Obj).status).podIP), nodeName: obj((p as Obj).spec).nodeName, targetRef: { kind: "Pod", namespace, name: p.metadata.name, uid: p.metadata.uid } });
    const ready = inEndpoints.filter((p) => publishNotReady || podReady(p));
    const notReady = inEndpoints.filter((p) => !publishNotReady && !podReady(p));
    const epPorts = ports.map((p) => ({ ...(p.name ? { name: p.name } : {}), port: (members[0] && targetPort(p, members[0])) ?? Number(p.port), protocol: p.protocol ?? "TCP" }));
    const owner = [controllerRef(service, SERVICE)];
    // As the endpoints controller writes them: its managed-by label, the time of the change it reflects, no `subsets` when empty.
    const subsets = inEndpoints.length === 0 ? undefined : [{ ...(ready.length ? { addresses: ready.map(address) } : {}), ...(notReady.length ? { notReadyAddresses: notReady.map(address) } : {}), ports: epPorts }];
    const changed = { "endpoints.kubernetes.io/last-change-trigger-time": new Date().toISOString().replace(/\.\d+Z$/, "Z") };
    const labels = { ...(service.metadata.labels ?? {}), "endpoints.kubernetes.io/managed-by": "endpoint-controller" };
    await upsert(ENDPOINTS, { apiVersion: "v1", kind: "Endpoints", metadata: { name, namespace, labels, ...(subsets ? { annotations: changed } : {}) }, ...(subsets ? { subsets } : {}) } as KubeObject);
    const conditions = (p: KubeObject): Obj => {
      const serving = podReady(p);
      const terminating = Boolean(p.metadata.deletionTimestamp);
      return { ready: publishNotReady || (serving && !terminating), serving, terminating };
    };
    const slice = await sliceName(key, namespace ?? "", name ?? "");
    await upsert(SLICE, {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { ...(slice !== undefined ? { name: slice } : { generateName: `${name}-` }), ...(members.length > 0 ? { annotations: changed } : {}), namespace, labels: { "kubernetes.io/service-name": name, "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io" }, ownerReferences: owner },
      addressType: "IPv4",
      endpoints: members.map((p) => ({ addresses: [String(obj((p as Obj).status).podIP)], conditions: conditions(p), nodeName: obj((p as Obj).spec).nodeName, targetRef: { kind: "Pod", namespace, name: p.metadata.name, uid: p.metadata.uid } })),
      ports: epPorts,
    } as KubeObject, (created) => sliceNames.set(key, created.metadata.name ?? ""));
  }

  function smallest(sets: readonly ReadonlySet<string>[]): ReadonlySet<string> {
    return sets.reduce<ReadonlySet<string> | undefined>((best, set) => (best === undefined || set.size < best.size ? set : best), undefined) ?? EMPTY;
  }

  function indexService(key: string, service: KubeObject | undefined): void {
    const previous = servicePair.get(key);
    if (previous !== undefined) servicesByPair.remove(previous, key);
    servicePair.delete(key);
    const selector = obj(obj((service as Obj | undefined)?.spec).selector) as Record<string, string>;
    const pairs = pairsOf(service?.metadata.namespace, selector);
    if (pairs.length === 0) return;
    const pair = pairs.reduce((best, p) => (servicesByPair.get(p).size < servicesByPair.get(best).size ? p : best));
    servicesByPair.add(pair, key);
    servicePair.set(key, pair);
  }

  function onService(event: ClusterEvent): void {
    const key = keyOf(event.object);
    if (event.type === "DELETED") {
      services.delete(key);
      sliceNames.delete(key);
      indexService(key, undefined);
      const [namespace, name] = splitNsKey(key);
      if (cluster) void ignoreNotFound(cluster.delete(ENDPOINTS, namespace, name)).catch(() => undefined);
      return;
    }
    services.set(key, event.object);
    indexService(key, event.object);
    queue.add(key);
  }

  function onPod(event: ClusterEvent): void {
    const key = keyOf(event.object);
    const before = pods.get(key);
    for (const pair of pairsOf(before?.metadata.namespace, before?.metadata.labels)) podsByPair.remove(pair, key);
    if (event.type === "DELETED") pods.delete(key);
    else {
      pods.set(key, event.object);
      for (const pair of pairsOf(event.object.metadata.namespace, event.object.metadata.labels)) podsByPair.add(pair, key);
    }
    const touched = new Set<string>();
    for (const version of before ? [before, event.object] : [event.object]) {
      for (const pair of pairsOf(version.metadata.namespace, version.metadata.labels)) {
        for (const serviceKey of servicesByPair.get(pair)) touched.add(serviceKey);
      }
    }
    for (const serviceKey of touched) {
      const service = services.get(serviceKey);
      const selector = obj(obj((service as Obj | undefined)?.spec).selector) as Record<string, string>;
      if (selects(selector, event.object) || (before && selects(selector, before))) queue.add(serviceKey);
    }
  }

  return {
    name: "endpoints-controller",
    start(c: Cluster): void {
      cluster = c;
      unwatch.push(c.watch(SERVICE, onService), c.watch(POD, onPod));
    },
    async stop(): Promise<void> {
      for (const u of unwatch) u();
      await queue.stop();
    },
  };
}
