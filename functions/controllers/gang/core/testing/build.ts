/** Test support: small builders of Pods and Nodes (raw objects as the watch delivers them, and their records). */
import { parseNode, parsePod, type NodeRecord, type PodRecord } from "../records.ts";

/** Options of a test node. */
export interface NodeOptions {
  readonly cpu?: string;
  readonly memory?: string;
  readonly pods?: string;
  readonly gpu?: string;
  readonly labels?: Record<string, string>;
  readonly taints?: readonly { key: string; value?: string; effect: string }[];
  readonly unschedulable?: boolean;
  readonly ready?: boolean;
}

/** A raw Node. */
export function rawNode(name: string, options: NodeOptions = {}): Record<string, unknown> {
  const allocatable: Record<string, string> = { cpu: options.cpu ?? "8", memory: options.memory ?? "32Gi", pods: options.pods ?? "110" };
  if (options.gpu !== undefined) allocatable["nvidia.com/gpu"] = options.gpu;
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name, ...options.labels } },
    spec: { taints: options.taints ?? [], unschedulable: options.unschedulable ?? false },
    status: { allocatable, capacity: allocatable, conditions: [{ type: "Ready", status: options.ready === false ? "False" : "True" }] },
  };
}

/** A node record. */
export function node(name: string, options: NodeOptions = {}): NodeRecord {
  return parseNode(rawNode(name, options));
}

/** Options of a test pod. */
export interface PodOptions {
  readonly namespace?: string;
  readonly uid?: string;
  readonly group?: string;
  readonly size?: number;
  readonly cpu?: string;
  readonly memory?: string;
  readonly gpu?: string;
  readonly scheduler?: string;
  readonly nodeName?: string;
  readonly phase?: string;
  readonly priority?: number;
  /** Creation time, seconds after 2026-01-01T00:00:00Z. */
  readonly created?: number;
  readonly deadline?: number;
  readonly nodeSelector?: Record<string, string>;
  readonly affinity?: unknown;
  readonly tolerations?: readonly Record<string, string>[];
}

/** A raw Pod. */
export function rawPod(name: string, options: PodOptions = {}): Record<string, unknown> {
  const requests: Record<string, string> = {};
  if (options.cpu !== undefined) requests["cpu"] = options.cpu;
  if (options.memory !== undefined) requests["memory"] = options.memory;
  if (options.gpu !== undefined) requests["nvidia.com/gpu"] = options.gpu;
  const labels: Record<string, string> = {};
  if (options.group !== undefined) labels["fluxnetes.group-name"] = options.group;
  if (options.size !== undefined) labels["fluxnetes.group-size"] = String(options.size);
  const spec: Record<string, unknown> = { schedulerName: options.scheduler ?? "fluxnetes", containers: [{ name: "main", image: "busybox", resources: { requests } }] };
  if (options.nodeName !== undefined) spec["nodeName"] = options.nodeName;
  if (options.priority !== undefined) spec["priority"] = options.priority;
  if (options.deadline !== undefined) spec["activeDeadlineSeconds"] = options.deadline;
  if (options.nodeSelector !== undefined) spec["nodeSelector"] = options.nodeSelector;
  if (options.affinity !== undefined) spec["affinity"] = options.affinity;
  if (options.tolerations !== undefined) spec["tolerations"] = options.tolerations;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: options.namespace ?? "default", uid: options.uid ?? `uid-${name}`, labels, creationTimestamp: new Date(Date.UTC(2026, 0, 1) + (options.created ?? 0) * 1000).toISOString() },
    spec,
    status: { phase: options.phase ?? (options.nodeName === undefined ? "Pending" : "Running") },
  };
}

/** A pod record. */
export function pod(name: string, options: PodOptions = {}): PodRecord {
  return parsePod(rawPod(name, options));
}

/** `count` pods `<group>-0`.. of one group, all with `options`. */
export function gang(group: string, count: number, options: PodOptions = {}): PodRecord[] {
  return Array.from({ length: count }, (_, i) => pod(`${group}-${i}`, { group, size: count, ...options }));
}

/** 2026-01-01T00:00:00Z plus `seconds`, in ms. */
export function at(seconds: number): number {
  return Date.UTC(2026, 0, 1) + seconds * 1000;
}
