/**
 * Resource amounts as kube-scheduler reads them: Kubernetes quantities (parsed exactly by
 * protocol/kube/quantity.ts) as integers, cpu in millicores, memory and every other
 * resource in whole units, rounded up as `resource.Quantity.MilliValue`/`Value` do; a
 * pod's effective requests, and a node's allocatable.
 */
import { parseQuantity, quantityMilliValue, quantityValue } from "../../../../protocol/kube/quantity.ts";
import { asArray, asObject, asString, dig } from "./read.ts";

/** Compact resource amounts: cpu millicores, memory bytes, pod slots, and extended resources (e.g. `nvidia.com/gpu`) by name. */
export interface Resources {
  readonly cpu: number;
  readonly memory: number;
  readonly pods: number;
  /** Every other resource by name, in whole units; zero amounts are left out; keys sorted. */
  readonly scalar: Readonly<Record<string, number>>;
}

/** No resources at all. */
export const ZERO: Resources = Object.freeze({ cpu: 0, memory: 0, pods: 0, scalar: Object.freeze({}) });

/** The resource names of the fixed dimensions. */
export const CPU = "cpu";
export const MEMORY = "memory";
export const PODS = "pods";

/** The largest amount kept: beyond it amounts are clamped (no real node or pod comes near). */
const MAX = Number.MAX_SAFE_INTEGER;

/** The amount of `name` a `{ "cpu": "2", ... }` map gives, in this module's units, or undefined when absent or malformed. */
function amountOf(map: Readonly<Record<string, unknown>> | undefined, name: string): number | undefined {
  const raw = map?.[name];
  if (raw === undefined) return undefined;
  const quantity = parseQuantity(raw);
  if (quantity === undefined) return undefined;
  return Math.max(name === CPU ? quantityMilliValue(quantity) : quantityValue(quantity), 0);
}

/** A resource list (`requests`, `allocatable`...) as compact amounts; `fallback` fills the names the list lacks (limits for requests). */
export function resourceList(list: unknown, fallback?: unknown, pods = 0): Resources {
  const primary = asObject(list);
  const secondary = asObject(fallback);
  const names = new Set([...Object.keys(primary ?? {}), ...Object.keys(secondary ?? {})]);
  const scalar: Record<string, number> = {};
  let cpu = 0;
  let memory = 0;
  for (const name of [...names].sort()) {
    const amount = amountOf(primary, name) ?? amountOf(secondary, name) ?? 0;
    if (name === CPU) cpu = amount;
    else if (name === MEMORY) memory = amount;
    else if (name === PODS) pods = amount;
    else if (amount > 0) scalar[name] = amount;
  }
  return { cpu, memory, pods, scalar };
}

/** `a + b`. */
export function addResources(a: Resources, b: Resources): Resources {
  return combine(a, b, (x, y) => Math.min(x + y, MAX));
}

/** The larger of `a` and `b` in every resource. */
export function maxResources(a: Resources, b: Resources): Resources {
  return combine(a, b, Math.max);
}

function combine(a: Resources, b: Resources, op: (x: number, y: number) => number): Resources {
  const scalar: Record<string, number> = {};
  for (const name of [...new Set([...Object.keys(a.scalar), ...Object.keys(b.scalar)])].sort()) {
    const amount = op(a.scalar[name] ?? 0, b.scalar[name] ?? 0);
    if (amount > 0) scalar[name] = amount;
  }
  return { cpu: op(a.cpu, b.cpu), memory: op(a.memory, b.memory), pods: op(a.pods, b.pods), scalar };
}

/** A container's requests; a resource with a limit but no request requests its limit (API server defaulting). */
function containerRequests(container: unknown): Resources {
  return resourceList(dig(container, "resources", "requests"), dig(container, "resources", "limits"));
}

/**
 * A pod's requests as kube-scheduler computes them (`resourcehelper.PodRequests`): the sum
 * of its containers and restartable (sidecar) init containers, or the largest regular init
 * container plus the sidecars started before it if that is more, plus `spec.overhead`,
 * plus one pod slot.
 */
export function podRequests(pod: unknown): Resources {
  const spec = asObject(dig(pod, "spec"));
  let sum = ZERO;
  for (const container of asArray(spec?.["containers"])) sum = addResources(sum, containerRequests(container));
  let sidecars = ZERO;
  let init = ZERO;
  for (const container of asArray(spec?.["initContainers"])) {
    const requests = containerRequests(container);
    if (asString(dig(container, "restartPolicy")) === "Always") {
      sum = addResources(sum, requests);
      sidecars = addResources(sidecars, requests);
    } else {
      init = maxResources(init, addResources(requests, sidecars));
    }
  }
  const total = addResources(maxResources(sum, init), resourceList(spec?.["overhead"]));
  return { ...total, pods: 1 };
}

/** A node's allocatable (`status.allocatable`, else `status.capacity`). */
export function nodeAllocatable(node: unknown): Resources {
  const status = asObject(dig(node, "status"));
  return resourceList(status?.["allocatable"] ?? status?.["capacity"]);
}

/** Every resource name with a non-zero amount, fixed dimensions first. */
export function resourceNames(resources: Resources): readonly string[] {
  return [CPU, MEMORY, PODS, ...Object.keys(resources.scalar)];
}

/** The amount of one resource by name. */
export function amount(resources: Resources, name: string): number {
  return name === CPU ? resources.cpu : name === MEMORY ? resources.memory : name === PODS ? resources.pods : (resources.scalar[name] ?? 0);
}

/** An amount written for people: cpu in cores or millicores, bytes with a binary suffix when exact, others as integers. */
export function formatAmount(name: string, value: number): string {
  if (name === CPU) return value % 1000 === 0 ? String(value / 1000) : `${value}m`;
  if (name === MEMORY || name === "ephemeral-storage" || name.startsWith("hugepages-")) {
    for (const [suffix, shift] of [["Ti", 40], ["Gi", 30], ["Mi", 20], ["Ki", 10]] as const) {
      const unit = 2 ** shift;
      if (value >= unit && value % unit === 0) return `${value / unit}${suffix}`;
    }
  }
  return String(value);
}
