/**
 * The pure part of managing a Job's pods, after the upstream Job controller: which pods
 * count as active, failed or terminating, how many should run, which to delete first,
 * and the pod made from the template (with the completion index for Indexed Jobs).
 */
import type { KubeObject } from "../../../protocol/index.ts";
import { controllerRef } from "../../../protocol/kube/owner.ts";
import { arr, obj, podReady, terminal, type Obj } from "../runtime.ts";
import { completionIndex, INDEX_ANNOTATION } from "./indexes.ts";

/** The owner a Job's pods name, at the version the Job controller writes. */
const JOB = { apiVersion: "batch/v1", kind: "Job" };

/** The finalizer that keeps a finished pod until the controller has counted it. */
export const TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking";
/** The environment variable an Indexed Job's containers read their index from. */
export const INDEX_ENV = "JOB_COMPLETION_INDEX";

/** The parts of a Job's spec the controller acts on, defaulted. */
export interface JobSpec {
  /** Undefined: a work queue, complete once any pod succeeds. */
  readonly completions: number | undefined;
  readonly parallelism: number;
  readonly backoffLimit: number;
  readonly indexed: boolean;
  readonly suspend: boolean;
  readonly activeDeadlineSeconds: number | undefined;
  readonly restartPolicy: string;
  /** podReplacementPolicy Failed (or a podFailurePolicy): terminating pods are replaced only once they have failed. */
  readonly onlyReplaceFailed: boolean;
  readonly ttlSecondsAfterFinished: number | undefined;
}

const optionalNumber = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

/** The controller's view of a Job's spec. */
export function jobSpec(job: KubeObject): JobSpec {
  const spec = obj((job as Obj).spec);
  return {
    completions: optionalNumber(spec.completions),
    parallelism: optionalNumber(spec.parallelism) ?? 1,
    backoffLimit: optionalNumber(spec.backoffLimit) ?? 6,
    indexed: spec.completionMode === "Indexed",
    suspend: spec.suspend === true,
    activeDeadlineSeconds: optionalNumber(spec.activeDeadlineSeconds),
    restartPolicy: String(obj(obj(spec.template).spec).restartPolicy ?? ""),
    onlyReplaceFailed: spec.podReplacementPolicy === "Failed" || spec.podFailurePolicy !== undefined,
    ttlSecondsAfterFinished: optionalNumber(spec.ttlSecondsAfterFinished),
  };
}

const phase = (pod: KubeObject): unknown => obj((pod as Obj).status).phase;

/** Running or about to: not finished and not being deleted (FilterActivePods). */
export function isActive(pod: KubeObject): boolean {
  return !terminal(pod) && !pod.metadata.deletionTimestamp;
}

/** Being deleted but not finished yet. */
export function isTerminating(pod: KubeObject): boolean {
  return Boolean(pod.metadata.deletionTimestamp) && !terminal(pod);
}

/** Whether a pod counts as failed: phase Failed, or (unless only failed pods are replaced) deleted before it succeeded. */
export function isPodFailed(pod: KubeObject, spec: Pick<JobSpec, "onlyReplaceFailed">): boolean {
  if (phase(pod) === "Failed") return true;
  if (spec.onlyReplaceFailed) return false;
  return Boolean(pod.metadata.deletionTimestamp) && phase(pod) !== "Succeeded";
}

/** Whether the pod still carries the tracking finalizer. */
export function hasTracking(pod: KubeObject): boolean {
  return (pod.metadata.finalizers ?? []).includes(TRACKING_FINALIZER);
}

/** How many pods should be active. */
export function wantActive(spec: Pick<JobSpec, "completions" | "parallelism">, succeeded: number, active: number): number {
  if (spec.completions === undefined) return succeeded > 0 ? active : spec.parallelism;
  return Math.max(0, Math.min(spec.completions - succeeded, spec.parallelism));
}

const PHASE_ORDER: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

function maxRestarts(pod: KubeObject): number {
  return Math.max(0, ...arr(obj((pod as Obj).status).containerStatuses).map((c) => Number(c.restartCount ?? 0) || 0));
}

/** controller.ActivePods: the pod to delete first sorts first (unscheduled, pending, not ready, restarting, newest). */
export function deleteFirst(a: KubeObject, b: KubeObject): number {
  const nodeA = String(obj((a as Obj).spec).nodeName ?? "");
  const nodeB = String(obj((b as Obj).spec).nodeName ?? "");
  if (nodeA !== nodeB && (nodeA === "" || nodeB === "")) return nodeA === "" ? -1 : 1;
  const phaseA = PHASE_ORDER[String(phase(a))] ?? 0;
  const phaseB = PHASE_ORDER[String(phase(b))] ?? 0;
  if (phaseA !== phaseB) return phaseA - phaseB;
  if (podReady(a) !== podReady(b)) return podReady(a) ? 1 : -1;
  if (maxRestarts(a) !== maxRestarts(b)) return maxRestarts(b) - maxRestarts(a);
  return (b.metadata.creationTimestamp ?? "").localeCompare(a.metadata.creationTimestamp ?? "");
}

/** Pods without a valid index, or repeating one, keeping per index the pod furthest along. */
function duplicatedIndexPods(active: readonly KubeObject[], completions: number): { remove: KubeObject[]; left: KubeObject[] } {
  const byIndex = new Map<number, KubeObject[]>();
  const remove: KubeObject[] = [];
  for (const pod of active) {
    const index = completionIndex(pod);
    if (index === undefined || index >= completions) remove.push(pod);
    else byIndex.set(index, [...(byIndex.get(index) ?? []), pod]);
  }
  const left: KubeObject[] = [];
  for (const pods of byIndex.values()) {
    const sorted = [...pods].sort(deleteFirst);
    remove.push(...sorted.slice(0, -1));
    left.push(...sorted.slice(-1));
  }
  return { remove, left };
}

/** The active pods to delete: at least `atLeast`, and for Indexed Jobs every pod with a bad or repeated index. */
export function activePodsForRemoval(spec: Pick<JobSpec, "indexed" | "completions">, active: readonly KubeObject[], atLeast: number): KubeObject[] {
  let remove: KubeObject[] = [];
  let left = [...active];
  if (spec.indexed) ({ remove, left } = duplicatedIndexPods(active, spec.completions ?? 0));
  if (remove.length < atLeast) remove = [...remove, ...left.sort(deleteFirst).slice(0, atLeast - remove.length)];
  return remove;
}

function withIndexEnv(container: unknown): Obj {
  const c = obj(container);
  const env = arr(c.env);
  if (env.some((e) => e.name === INDEX_ENV)) return c;
  return { ...c, env: [...env, { name: INDEX_ENV, valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${INDEX_ANNOTATION}']` } } }] };
}

/** `<job>-<index>-`, shortened as upstream does so that the generated name stays a DNS label. */
function indexedPrefix(jobName: string, index: number): string {
  const suffix = `-${index}-`;
  const prefix = `${jobName}${suffix}`;
  return prefix.length > 58 ? `${prefix.slice(0, 58 - suffix.length)}${suffix}` : prefix;
}

/** The pod a Job creates from its template: owned by the Job, tracked by the finalizer, indexed when asked. */
export function podForJob(job: KubeObject, index?: number): KubeObject {
  const template = obj(obj((job as Obj).spec).template);
  const meta = obj(template.metadata);
  const name = job.metadata.name ?? "";
  let spec = obj(template.spec);
  let labels = { ...(obj(meta.labels) as Record<string, string>) };
  let annotations = meta.annotations ? { ...(meta.annotations as Record<string, string>) } : undefined;
  if (index !== undefined) {
    annotations = { ...annotations, [INDEX_ANNOTATION]: String(index) };
    labels = { ...labels, [INDEX_ANNOTATION]: String(index) };
    spec = { ...spec, hostname: `${name}-${index}`, containers: arr(spec.containers).map(withIndexEnv), ...(spec.initContainers ? { initContainers: arr(spec.initContainers).map(withIndexEnv) } : {}) };
  }
  const finalizers = [...new Set([...((meta.finalizers as string[] | undefined) ?? []), TRACKING_FINALIZER])];
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: index === undefined ? `${name}-` : indexedPrefix(name, index),
      namespace: job.metadata.namespace,
      labels,
      ...(annotations ? { annotations } : {}),
      finalizers,
      ownerReferences: [controllerRef(job, JOB)],
    },
    spec,
  } as KubeObject;
}
