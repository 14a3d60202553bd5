/**
 * `service/kubernetes` in `default`, as every cluster has it: ClusterIP 10.96.0.1, port
 * 443 named https, no selector (the API server keeps its Endpoints and EndpointSlice,
 * which point at the sim's own address; the sim speaks plain HTTP there).
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { Cluster } from "../contract.ts";
import { jsonEqual, type Obj } from "./objects.ts";

const NAME = "kubernetes";
const NAMESPACE = "default";
/** The first address of the service range, the API server's own. */
export const KUBERNETES_CLUSTER_IP = "10.96.0.1";
/** The port the Service targets on a kind cluster before the sim announces its own. */
const DEFAULT_TARGET_PORT = 6443;

/** The Service, targeting `port` on the API server. */
export function kubernetesService(port = DEFAULT_TARGET_PORT): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: NAME, namespace: NAMESPACE, labels: { component: "apiserver", provider: "kubernetes" } },
    spec: {
      clusterIP: KUBERNETES_CLUSTER_IP,
      clusterIPs: [KUBERNETES_CLUSTER_IP],
      internalTrafficPolicy: "Cluster",
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: port }],
      sessionAffinity: "None",
      type: "ClusterIP",
    },
    status: { loadBalancer: {} },
  } as KubeObject;
}

function endpoints(ip: string, port: number): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: { name: NAME, namespace: NAMESPACE, labels: { "endpointslice.kubernetes.io/skip-mirror": "true" } },
    subsets: [{ addresses: [{ ip }], ports: [{ name: "https", port, protocol: "TCP" }] }],
  } as KubeObject;
}

function endpointSlice(ip: string, port: number): KubeObject {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name: NAME, namespace: NAMESPACE, labels: { "kubernetes.io/service-name": NAME } },
    addressType: "IPv4",
    endpoints: [{ addresses: [ip], conditions: { ready: true } }],
    ports: [{ name: "https", port, protocol: "TCP" }],
  } as KubeObject;
}

/** Creates `desired`, or brings its current version's content to it. */
async function upsert(cluster: Cluster, desired: KubeObject): Promise<void> {
  const type = { apiVersion: desired.apiVersion, kind: desired.kind };
  const current = await cluster.find(type, NAMESPACE, NAME);
  if (!current) {
    await cluster.create(desired);
    return;
  }
  const { metadata: _m, ...wanted } = desired as Obj;
  const changed = Object.entries(wanted).some(([key, value]) => !jsonEqual((current as Obj)[key], value));
  if (changed) await cluster.update({ ...current, ...wanted, metadata: { ...current.metadata, labels: desired.metadata.labels } } as KubeObject);
}

/**
 * What the API server's endpoint reconciler keeps: the Service targeting the sim's port,
 * and Endpoints and an EndpointSlice with the sim's address (a restart on another port
 * updates them).
 */
export async function publishApiServer(cluster: Cluster, ip: string, port: number): Promise<void> {
  const service = await cluster.find({ apiVersion: "v1", kind: "Service" }, NAMESPACE, NAME);
  if (!service) await cluster.create(kubernetesService(port));
  else await cluster.patch({ apiVersion: "v1", kind: "Service" }, NAMESPACE, NAME, { spec: { ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: port }] } }, "merge");
  await upsert(cluster, endpoints(ip, port));
  await upsert(cluster, endpointSlice(ip, port));
}
