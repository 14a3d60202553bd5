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

const nameColumn: Column = { name: "Name", type: "string", format: "name", description: "Name must be unique within a namespace.", cell: (o) => o.metadata.name ?? "" };
const ageColumn: Column = { name: "Age", type: "string", description: "CreationTimestamp", cell: (o, now) => age(o.metadata.creationTimestamp, now) };

const list = (value: unknown): Obj[] => (Array.isArray(value) ? value.map(asObj) : []);

function podStatus(pod: Obj): string {
  if (asObj(pod.metadata).deletionTimestamp) return "Terminating";
  const status = asObj(pod.status);
  for (const c of list(status.containerStatuses)) {
    const state = asObj(c.state);
    const waiting = asObj(state.waiting);
    const terminated = asObj(state.terminated);
    if (typeof waiting.reason === "string") return waiting.reason;
    if (typeof terminated.reason === "string" && status.phase === "Running") return terminated.reason;
  }
  return typeof status.reason === "string" ? status.reason : String(status.phase ?? "Pending");
}

const columnsByKind: Record<string, Column[]> = {
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

/** A Table of `objects` (one row each, the full object attached). */
export function toTable(resource: ResourceType, objects: readonly KubeObject[], resourceVersion: string, now: Date, withDefinitions = true): Obj {
  const columns = columnsOf(resource);
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: { resourceVersion },
    ...(withDefinitions
      ? { columnDefinitions: columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? "", description: c.description ?? "", priority: c.priority ?? 0 })) }
      : { columnDefinitions: [] }),
    rows: objects.map((object) => ({ cells: columns.map((c) => c.cell(object as KubeObject & Obj, now)), object })),
  };
}

/** Whether the Accept header asks for a Table. */
export function wantsTable(accept: string | undefined): boolean {
  return accept !== undefined && /as=Table/.test(accept.split(",")[0] ?? "");
}
