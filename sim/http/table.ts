/**
 * `kubectl get` asks for `Table`s (meta.k8s.io/v1): the server picks the columns. These
 * are the columns kube-apiserver prints for the kinds edgeloop uses, plus each CRD's
 * additionalPrinterColumns.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { printerCell } from "./jsonpath.ts";
import { asObj, type Obj } from "../api/objects.ts";
import type { ResourceType } from "../registry/resource.ts";

interface Column {
  readonly name: string;
  readonly type: string;
  readonly format?: string;
  readonly priority?: number;
  readonly description?: string;
  cell(object: KubeObject & Obj, now: Date): unknown;
}

/** `5s`, `3m`, `2h`, `4d`: kubectl's short age. */
export function age(since: string | undefined, now: Date): string {
  if (!since) return "<unknown>";
  const seconds = Math.max(0, Math.floor((now.getTime() - Date.parse(since)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** duration.HumanDuration: how kubectl prints a span (`45s`, `3m20s`, `2h5m`, `3d4h`). */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  const pair = (big: number, unit: string, small: number, smallUnit: string): string => (small === 0 ? `${big}${unit}` : `${big}${unit}${small}${smallUnit}`);
  if (minutes < 10) return pair(minutes, "m", seconds % 60, "s");
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return pair(hours, "h", minutes % 60, "m");
  if (hours < 48) return `${hours}h`;
  if (hours < 192) return pair(Math.floor(hours / 24), "d", hours % 24, "h");
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) return pair(Math.floor(hours / 24 / 365), "y", Math.floor(hours / 24) % 365, "d");
  return `${Math.floor(hours / 24 / 365)}y`;
}

const nameColumn: Column = { name: "Name", type: "string", format: "name", description: "Name must be unique within a namespace.", cell: (o) => o.metadata.name ?? "" };
const ageColumn: Column = { name: "Age", type: "string", description: "CreationTimestamp", cell: (o, now) => age(o.metadata.creationTimestamp, now) };

const list = (value: unknown): Obj[] => (Array.isArray(value) ? value.map(asObj) : []);

/**
 * The STATUS column as kubectl's pod printer computes it: the phase (or the pod's
 * reason), overridden by the last container reporting a waiting reason or a termination
 * (`Completed`, `Error`, `ExitCode:N`), back to Running while another container still
 * runs; `Terminating` once deletion started.
 */
function podStatus(pod: Obj): string {
  const status = asObj(pod.status);
  let reason = typeof status.reason === "string" ? status.reason : String(status.phase ?? "Pending");
  let running = false;
  for (const c of list(status.containerStatuses).reverse()) {
    const state = asObj(c.state);
    const waiting = asObj(state.waiting);
    const terminated = state.terminated === undefined ? undefined : asObj(state.terminated);
    if (typeof waiting.reason === "string" && waiting.reason !== "") reason = waiting.reason;
    else if (terminated && typeof terminated.reason === "string" && terminated.reason !== "") reason = terminated.reason;
    else if (terminated) reason = typeof terminated.signal === "number" && terminated.signal !== 0 ? `Signal:${terminated.signal}` : `ExitCode:${String(terminated.exitCode ?? 0)}`;
    else if (c.ready === true && state.running !== undefined) running = true;
  }
  if (reason === "Completed" && running) reason = "Running";
  return asObj(pod.metadata).deletionTimestamp ? "Terminating" : reason;
}

const conditionTrue = (o: Obj, type: string): boolean => list(asObj(o.status).conditions).some((c) => c.type === type && c.status === "True");

/** printJob's STATUS: terminal conditions first, then deletion, suspension and the interim conditions. */
function jobStatus(o: Obj): string {
  if (conditionTrue(o, "Complete")) return "Complete";
  if (conditionTrue(o, "Failed")) return "Failed";
  if (asObj(o.metadata).deletionTimestamp) return "Terminating";
  for (const type of ["Suspended", "FailureTarget", "SuccessCriteriaMet"]) if (conditionTrue(o, type)) return type;
  return "Running";
}

/** printJob's COMPLETIONS: `succeeded/completions`, or for a work queue `succeeded/1 [of parallelism]`. */
function jobCompletions(o: Obj): string {
  const spec = asObj(o.spec);
  const succeeded = Number(asObj(o.status).succeeded ?? 0);
  if (typeof spec.completions === "number") return `${succeeded}/${spec.completions}`;
  const parallelism = Number(spec.parallelism ?? 0);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** printJob's DURATION: from start to completion, or to now while running. */
function jobDuration(o: Obj, now: Date): string {
  const status = asObj(o.status);
  const start = Date.parse(String(status.startTime ?? ""));
  if (!Number.isFinite(start)) return "";
  const end = Date.parse(String(status.completionTime ?? ""));
  return humanDuration((Number.isFinite(end) ? end : now.getTime()) - start);
}

/** The Endpoints column as kube-apiserver's printer writes it (`formatEndpoints`): ready `ip:port`s, three at most, then `+ N more...`. */
export function formatEndpoints(endpoints: Obj): string {
  const subsets = list(endpoints.subsets);
  if (subsets.length === 0) return "<none>";
  const shown: string[] = [];
  let count = 0;
  for (const subset of subsets) {
    const addresses = list(subset.addresses).map((a) => String(a.ip ?? ""));
    const ports = list(subset.ports);
    const pairs = ports.length === 0 ? addresses : ports.flatMap((port) => addresses.map((ip) => (ip.includes(":") ? `[${ip}]:${String(port.port)}` : `${ip}:${String(port.port)}`)));
    count += pairs.length;
    shown.push(...pairs.slice(0, Math.max(0, 3 - shown.length)));
  }
  if (count > 3) return `${shown.join(",")} + ${count - 3} more...`;
  return shown.length === 0 ? "<none>" : shown.join(",");
}

/** `k=v,k2=v2` of a Service's selector, as kubectl's printer writes it. */
function selectorText(selector: unknown): string {
  const entries = Object.entries(asObj(selector)).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? "<none>" : entries.map(([k, v]) => `${k}=${String(v)}`).join(",");
}

const columnsByKind: Record<string, Column[]> = {
  "/configmaps": [nameColumn, { name: "Data", type: "string", cell: (o) => Object.keys(asObj(o.data)).length + Object.keys(asObj(o.binaryData)).length }, ageColumn],
  "/secrets": [nameColumn, { name: "Type", type: "string", cell: (o) => o.type ?? "" }, { name: "Data", type: "string", cell: (o) => Object.keys(asObj(o.data)).length }, ageColumn],
  "/endpoints": [nameColumn, { name: "Endpoints", type: "string", description: "Endpoints of the service", cell: (o) => formatEndpoints(o) }, ageColumn],
  "/pods": [
    nameColumn,
    { name: "Ready", type: "string", cell: (o) => { const s = list(asObj(o.status).containerStatuses); return `${s.filter((c) => c.ready === true).length}/${list(asObj(o.spec).containers).length}`; } },
    { name: "Status", type: "string", cell: (o) => podStatus(o) },
    { name: "Restarts", type: "string", cell: (o) => String(list(asObj(o.status).containerStatuses).reduce((n, c) => n + (Number(c.restartCount) || 0), 0)) },
    ageColumn,
    { name: "IP", type: "string", priority: 1, cell: (o) => asObj(o.status).podIP ?? "<none>" },
    { name: "Node", type: "string", priority: 1, cell: (o) => asObj(o.spec).nodeName ?? "<none>" },
  ],
  "/nodes": [
    nameColumn,
    { name: "Status", type: "string", cell: (o) => { const ready = list(asObj(o.status).conditions).find((c) => c.type === "Ready"); const base = ready?.status === "True" ? "Ready" : ready?.status === "Unknown" ? "NotReady" : "NotReady"; return asObj(o.spec).unschedulable ? `${base},SchedulingDisabled` : base; } },
    { name: "Roles", type: "string", cell: () => "<none>" },
    ageColumn,
    { name: "Version", type: "string", cell: (o) => asObj(asObj(o.status).nodeInfo).kubeletVersion ?? "" },
  ],
  "/services": [
    nameColumn,
    { name: "Type", type: "string", cell: (o) => asObj(o.spec).type ?? "ClusterIP" },
    { name: "Cluster-IP", type: "string", cell: (o) => asObj(o.spec).clusterIP ?? "<none>" },
    { name: "External-IP", type: "string", cell: () => "<none>" },
    { name: "Port(s)", type: "string", cell: (o) => list(asObj(o.spec).ports).map((p) => `${String(p.port)}/${String(p.protocol ?? "TCP")}`).join(",") || "<none>" },
    ageColumn,
    { name: "Selector", type: "string", priority: 1, cell: (o) => selectorText(asObj(o.spec).selector) },
  ],
  "apps/deployments": [
    nameColumn,
    { name: "Ready", type: "string", cell: (o) => `${Number(asObj(o.status).readyReplicas ?? 0)}/${Number(asObj(o.spec).replicas ?? 0)}` },
    { name: "Up-to-date", type: "integer", cell: (o) => Number(asObj(o.status).updatedReplicas ?? 0) },
    { name: "Available", type: "integer", cell: (o) => Number(asObj(o.status).availableReplicas ?? 0) },
    ageColumn,
  ],
  "apps/replicasets": [
    nameColumn,
    { name: "Desired", type: "integer", cell: (o) => Number(asObj(o.spec).replicas ?? 0) },
    { name: "Current", type: "integer", cell: (o) => Number(asObj(o.status).replicas ?? 0) },
    { name: "Ready", type: "integer", cell: (o) => Number(asObj(o.status).readyReplicas ?? 0) },
    ageColumn,
  ],
  "apps/daemonsets": [
    nameColumn,
    { name: "Desired", type: "integer", description: "The total number of nodes that should be running the daemon pod.", cell: (o) => Number(asObj(o.status).desiredNumberScheduled ?? 0) },
    { name: "Current", type: "integer", description: "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.", cell: (o) => Number(asObj(o.status).currentNumberScheduled ?? 0) },
    { name: "Ready", type: "integer", description: "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.", cell: (o) => Number(asObj(o.status).numberReady ?? 0) },
    { name: "Up-to-date", type: "integer", description: "The total number of nodes that are running updated daemon pod", cell: (o) => Number(asObj(o.status).updatedNumberScheduled ?? 0) },
    { name: "Available", type: "integer", description: "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)", cell: (o) => Number(asObj(o.status).numberAvailable ?? 0) },
    { name: "Node Selector", type: "string", description: "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/", cell: (o) => selectorText(asObj(asObj(asObj(o.spec).template).spec).nodeSelector) },
    ageColumn,
  ],
  "apps/statefulsets": [
    nameColumn,
    { name: "Ready", type: "string", description: "Number of the pod with ready state", cell: (o) => `${Number(asObj(o.status).readyReplicas ?? 0)}/${Number(asObj(o.spec).replicas ?? 0)}` },
    ageColumn,
  ],
  "/replicationcontrollers": [
    nameColumn,
    { name: "Desired", type: "integer", description: "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller", cell: (o) => Number(asObj(o.spec).replicas ?? 0) },
    { name: "Current", type: "integer", description: "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller", cell: (o) => Number(asObj(o.status).replicas ?? 0) },
    { name: "Ready", type: "integer", description: "The number of ready replicas for this replication controller.", cell: (o) => Number(asObj(o.status).readyReplicas ?? 0) },
    ageColumn,
  ],
  "batch/jobs": [
    nameColumn,
    { name: "Status", type: "string", description: "Status of the job.", cell: (o) => jobStatus(o) },
    { name: "Completions", type: "string", description: "The number of pods which reached phase Succeeded.", cell: (o) => jobCompletions(o) },
    { name: "Duration", type: "string", description: "Time required to complete the job.", cell: (o, now) => jobDuration(o, now) },
    ageColumn,
    { name: "Containers", type: "string", priority: 1, description: "Names of each container in the template.", cell: (o) => list(asObj(asObj(asObj(o.spec).template).spec).containers).map((c) => String(c.name ?? "")).join(",") },
    { name: "Images", type: "string", priority: 1, description: "Images referenced by each container in the template.", cell: (o) => list(asObj(asObj(asObj(o.spec).template).spec).containers).map((c) => String(c.image ?? "")).join(",") },
    { name: "Selector", type: "string", priority: 1, description: "A label query over pods that should match the pod count.", cell: (o) => Object.entries(asObj(asObj(asObj(o.spec).selector).matchLabels)).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${String(v)}`).join(",") || "<none>" },
  ],
  "scheduling.k8s.io/priorityclasses": [
    nameColumn,
    { name: "Value", type: "integer", description: "value represents the integer value of this priority class.", cell: (o) => Number(o.value ?? 0) },
    { name: "Global-Default", type: "boolean", description: "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class.", cell: (o) => o.globalDefault === true },
    ageColumn,
    { name: "PreemptionPolicy", type: "string", description: "preemptionPolicy is the Policy for preempting pods with lower priority.", cell: (o) => (typeof o.preemptionPolicy === "string" ? o.preemptionPolicy : "Unknown") },
  ],
  "/namespaces": [nameColumn, { name: "Status", type: "string", cell: (o) => asObj(o.status).phase ?? "Active" }, ageColumn],
  "/events": [
    { name: "Last Seen", type: "string", cell: (o, now) => age(String(o.lastTimestamp ?? o.eventTime ?? o.metadata.creationTimestamp ?? ""), now) },
    { name: "Type", type: "string", cell: (o) => o.type ?? "" },
    { name: "Reason", type: "string", cell: (o) => o.reason ?? "" },
    { name: "Object", type: "string", cell: (o) => `${String(asObj(o.involvedObject).kind ?? "").toLowerCase()}/${String(asObj(o.involvedObject).name ?? "")}` },
    { name: "Message", type: "string", cell: (o) => o.message ?? "" },
  ],
};

function crdColumns(resource: ResourceType): Column[] {
  const printer = resource.crd?.printerColumns.get(resource.version) ?? [];
  const extra: Column[] = printer.map((p) => ({
    name: p.name,
    type: p.type === "date" ? "string" : p.type,
    ...(p.priority !== undefined ? { priority: p.priority } : {}),
    ...(p.description !== undefined ? { description: p.description } : {}),
    cell: (o, now) => {
      const value = printerCell(o, p.jsonPath);
      if (p.type === "date") return typeof value === "string" ? age(value, now) : "<unknown>";
      return value ?? null;
    },
  }));
  const hasAge = printer.some((p) => p.jsonPath === ".metadata.creationTimestamp");
  return [nameColumn, ...extra, ...(hasAge ? [] : [ageColumn])];
}

function columnsOf(resource: ResourceType): Column[] {
  if (resource.crd) return crdColumns(resource);
  return columnsByKind[`${resource.group}/${resource.plural}`] ?? [nameColumn, ageColumn];
}

/** What a Table row carries (`includeObject`): by default its object's metadata only, as PartialObjectMetadata. */
export type IncludeObject = "None" | "Metadata" | "Object";

function rowObject(object: KubeObject, include: IncludeObject): Obj {
  if (include === "None") return {};
  if (include === "Object") return { object };
  return { object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: object.metadata } };
}

/** A Table of `objects` (one row each, with what `include` asks of its object). */
export function toTable(resource: ResourceType, objects: readonly KubeObject[], resourceVersion: string, now: Date, withDefinitions = true, include: IncludeObject = "Metadata"): Obj {
  const columns = columnsOf(resource);
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: { resourceVersion },
    ...(withDefinitions
      ? { columnDefinitions: columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? "", description: c.description ?? "", priority: c.priority ?? 0 })) }
      : { columnDefinitions: [] }),
    rows: objects.map((object) => ({ cells: columns.map((c) => c.cell(object as KubeObject & Obj, now)), ...rowObject(object, include) })),
  };
}

/** Whether the Accept header asks for a Table. */
export function wantsTable(accept: string | undefined): boolean {
  return accept !== undefined && /as=Table/.test(accept.split(",")[0] ?? "");
}
