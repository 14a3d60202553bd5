/**
 * Resource amounts as kube-scheduler counts them: every resource by name, cpu in
 * millicores, everything else (memory, ephemeral-storage, pods, hugepages, extended
 * resources such as `nvidia.com/gpu`) in its units, rounded up as `Quantity.Value()`
 * rounds (quantities parsed by protocol/kube/quantity.ts). Parsed once per pod or node,
 * then compared as numbers.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { parseQuantity, quantityMilliValue, quantityValue } from "../../protocol/kube/quantity.ts";
import { arr, obj, type Obj } from "./runtime.ts";

/** Amounts by resource name. */
export type Amounts = Map<string, number>;

/** One resource's amount as the scheduler counts it: cpu in millicores, the rest in units (rounded up); 0 when it is no quantity. */
export function amountOf(resource: string, value: unknown): number {
  const quantity = parseQuantity(value);
  if (!quantity) return 0;
  return resource === "cpu" ? quantityMilliValue(quantity) : quantityValue(quantity);
}

/** A ResourceList (`{cpu: "500m", "nvidia.com/gpu": "1"}`) as amounts. */
export function amounts(list: unknown): Amounts {
  const out: Amounts = new Map();
  for (const [name, value] of Object.entries(obj(list))) out.set(name, amountOf(name, value));
  return out;
}

function addInto(into: Amounts, from: Amounts): void {
  for (const [name, amount] of from) into.set(name, (into.get(name) ?? 0) + amount);
}

function maxInto(into: Amounts, from: Amounts): void {
  for (const [name, amount] of from) if (amount > (into.get(name) ?? 0)) into.set(name, amount);
}

const requestsOfContainer = (container: Obj): Amounts => amounts(obj(container.resources).requests);

/**
 * A pod's effective requests, as NodeResourcesFit computes them: the containers' sum
 * (restartable init containers, sidecars, run alongside them), at least each other init
 * container's requests plus the sidecars started before it, plus `spec.overhead`.
 */
export function podRequests(pod: KubeObject): Amounts {
  const spec = obj((pod as Obj).spec);
  const total: Amounts = new Map();
  for (const c of arr(spec.containers)) addInto(total, requestsOfContainer(c));
  const sidecars: Amounts = new Map();
  const initPeak: Amounts = new Map();
  for (const c of arr(spec.initContainers)) {
    const requests = requestsOfContainer(c);
    if (c.restartPolicy === "Always") {
      addInto(sidecars, requests);
      continue;
    }
    const during = new Map(sidecars);
    addInto(during, requests);
    maxInto(initPeak, during);
  }
  addInto(total, sidecars);
  maxInto(total, initPeak);
  addInto(total, amounts(spec.overhead));
  return total;
}

/** A node's allocatable; `pods` 110 when the node does not say (nodes the tests write by hand). */
export function allocatableOf(node: KubeObject): Amounts {
  const allocatable = amounts(obj(obj((node as Obj).status).allocatable));
  if (!allocatable.has("pods")) allocatable.set("pods", 110);
  return allocatable;
}

/** What the pods bound to one node use. */
export interface Usage {
  pods: number;
  readonly requested: Amounts;
}

/** A node with nothing on it. */
export function idleUsage(): Usage {
  return { pods: 0, requested: new Map() };
}

/** Adds (`sign` 1) or removes (-1) one pod's requests. */
export function charge(usage: Usage, requests: Amounts, sign: 1 | -1): void {
  usage.pods += sign;
  for (const [name, amount] of requests) usage.requested.set(name, (usage.requested.get(name) ?? 0) + sign * amount);
}

/** cpu, memory and ephemeral-storage first, as NodeResourcesFit checks them, then the others. */
const FIRST = ["cpu", "memory", "ephemeral-storage"];

/**
 * NodeResourcesFit's verdict: `Too many pods`, then `Insufficient <resource>` for every
 * resource the pod requests (more than zero of) beyond what the node has left; a resource
 * the node does not list has 0. Empty when it fits.
 */
export function insufficient(requests: Amounts, allocatable: Amounts, used: Usage): string[] {
  const short: string[] = [];
  if (used.pods + 1 > (allocatable.get("pods") ?? 0)) short.push("Too many pods");
  const check = (name: string, amount: number): void => {
    if (amount > 0 && amount > (allocatable.get(name) ?? 0) - (used.requested.get(name) ?? 0)) short.push(`Insufficient ${name}`);
  };
  for (const name of FIRST) check(name, requests.get(name) ?? 0);
  for (const [name, amount] of requests) if (name !== "pods" && !FIRST.includes(name)) check(name, amount);
  return short;
}
