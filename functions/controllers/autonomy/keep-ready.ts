/**
 * Whether a Service backend on an autonomous edge node is kept ready while the node is
 * down: the rule the Endpoints and EndpointSlice webhooks share. Pure: the nodes, the pods
 * and the clock are given.
 *
 * Only an outage of the node is bridged. While the node is Ready, a not-ready address
 * means the pod itself is not ready (its readiness probe fails): it stays not ready.
 * Upstream flipped those too, so a failing pod on a healthy node kept receiving traffic.
 */
import { kindKey, type KubeObject } from "../../../protocol/index.ts";
import { autonomyOf, isReady, periodRunOut } from "./node-autonomy.ts";
import { poolDown } from "./pools.ts";

/** The kinds the endpoint webhooks read in `related`: the nodes named by the endpoints (and their pool peers), the pods they point to. */
export const NODE_TYPE = { apiVersion: "v1", kind: "Node" } as const;
export const POD_TYPE = { apiVersion: "v1", kind: "Pod" } as const;

/** The container waiting reason of a pod that keeps crashing. */
export const CRASH_LOOP = "CrashLoopBackOff";

/** What an endpoint says of itself: an Endpoints address or an EndpointSlice endpoint. */
export interface EndpointFacts {
  readonly nodeName?: string;
  readonly targetRef?: { readonly kind?: string; readonly name?: string; readonly namespace?: string };
  /** An EndpointSlice endpoint's `conditions.terminating`; Endpoints addresses have none. */
  readonly terminating?: boolean;
}

/** What the decision reads besides the endpoint. */
export interface KeepContext {
  /** The endpoint's node and the other nodes of its pool. */
  readonly nodes: readonly KubeObject[];
  /** The pods the endpoints point to. */
  readonly pods: readonly KubeObject[];
  /** Milliseconds since the epoch. */
  readonly now: number;
}

type Obj = Readonly<Record<string, unknown>>;

function record(value: unknown): Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : {};
}

function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The related objects of the webhooks' request as a `KeepContext`. */
export function keepContext(related: Readonly<Record<string, readonly KubeObject[]>>, now: number): KeepContext {
  return { nodes: related[kindKey(NODE_TYPE)] ?? [], pods: related[kindKey(POD_TYPE)] ?? [], now };
}

/**
 * Whether a container of the pod (an init container included: its pod never started) is
 * waiting in `CrashLoopBackOff`. Upstream's rule, on `containerStatuses`.
 */
export function crashLooping(pod: KubeObject): boolean {
  const status = record((pod as { status?: unknown }).status);
  const statuses = [...list(status["containerStatuses"]), ...list(status["initContainerStatuses"])];
  return statuses.some((container) => record(record(record(container)["state"])["waiting"])["reason"] === CRASH_LOOP);
}

/** The pod `targetRef` names, if among `pods` (a missing namespace matches any). */
function podOf(targetRef: NonNullable<EndpointFacts["targetRef"]>, pods: readonly KubeObject[]): KubeObject | undefined {
  return pods.find((pod) => pod.metadata.name === targetRef.name && (targetRef.namespace === undefined || pod.metadata.namespace === undefined || pod.metadata.namespace === targetRef.namespace));
}

/** Whether the node is autonomous and down, within its period (or for good while its whole pool is down). */
function nodeKeeps(node: KubeObject, context: KeepContext): boolean {
  const autonomy = autonomyOf(node);
  if (autonomy.kind !== "on" || isReady(node)) return false;
  return !periodRunOut(autonomy, node, context.now) || poolDown(node, context.nodes);
}

/**
 * Whether the endpoint of a pod is kept (made) ready. All must hold:
 * - it names its node and a Pod (`targetRef`), and is not terminating;
 * - the node is known, an edge node, autonomous, and NotReady or unreachable;
 * - the autonomy period has not run out, unless the node's whole pool is down;
 * - the pod is not crash-looping nor being deleted. A pod not found is kept (upstream's
 *   rule: the endpoints controller wrote the address from a pod it saw).
 */
export function keepsReady(endpoint: EndpointFacts, context: KeepContext): boolean {
  const { nodeName, targetRef } = endpoint;
  if (nodeName === undefined || nodeName === "" || targetRef?.kind !== "Pod" || targetRef.name === undefined || targetRef.name === "") return false;
  if (endpoint.terminating === true) return false;
  const node = context.nodes.find((candidate) => candidate.metadata.name === nodeName);
  if (node === undefined || !nodeKeeps(node, context)) return false;
  const pod = podOf(targetRef, context.pods);
  return pod === undefined || (pod.metadata.deletionTimestamp === undefined && !crashLooping(pod));
}

/** The `EndpointFacts` of a raw address or endpoint (`nodeName`, `targetRef`), `namespace` standing for a targetRef without one. */
export function endpointFacts(raw: unknown, namespace: string | undefined, terminating?: boolean): EndpointFacts {
  const value = record(raw);
  const ref = record(value["targetRef"]);
  const text = (field: unknown): string | undefined => (typeof field === "string" ? field : undefined);
  const targetRef = value["targetRef"] === undefined ? undefined : { kind: text(ref["kind"]), name: text(ref["name"]), namespace: text(ref["namespace"]) ?? namespace };
  return { nodeName: text(value["nodeName"]), targetRef, terminating };
}
