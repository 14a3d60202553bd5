/**
 * The Job controller (batch/v1), after upstream's pkg/controller/job: it runs
 * `parallelism` pods until `completions` succeed (each index once for Indexed Jobs),
 * counts finished pods through the `batch.kubernetes.io/job-tracking` finalizer and
 * `status.uncountedTerminatedPods`, replaces failed pods after an exponential backoff
 * until `backoffLimit`, enforces `activeDeadlineSeconds`, honours `suspend`, and
 * finishes in two steps (SuccessCriteriaMet → Complete, FailureTarget → Failed), with
 * the Events upstream records.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { controllerOf } from "../../protocol/kube/owner.ts";
import { jsonEqual } from "../api/objects.ts";
import type { Cluster, ClusterEvent, SimController } from "../contract.ts";
import { recordEvent } from "./events.ts";
import { NO_FAILURES, deadlineRemainingMs, finishedAt, nextBackoffRecord, pastBackoffLimitOnFailure, remainingBackoffMs, type BackoffRecord } from "./job/backoff.ts";
import { BACKOFF_LIMIT_EXCEEDED, COMPLETIONS_REACHED, DEADLINE_EXCEEDED, ensureCondition, finished, newCondition, trueCondition, type JobCondition } from "./job/conditions.ts";
import { completionIndex, firstPendingIndexes, formatIndexes, mergeIndexes, parseIndexes, validIndex } from "./job/indexes.ts";
import { activePodsForRemoval, hasTracking, isActive, isPodFailed, isTerminating, jobSpec, podForJob, TRACKING_FINALIZER, wantActive, type JobSpec } from "./job/pods.ts";
import { createPod, deletePod } from "./podcontrol.ts";
import { FailureBackoff } from "./retry.ts";
import { arr, isNotFound, keyOf, KeyQueue, now as stampNow, obj, podReady, splitNsKey, type Obj } from "./runtime.ts";

const JOB = { apiVersion: "batch/v1", kind: "Job" };
const POD = { apiVersion: "v1", kind: "Pod" };
const SOURCE = "job-controller";
/** syncJobBatchPeriod: a sync delayed by the pod-failure backoff waits at least this long. */
const MIN_DELAY_MS = 1000;

const phaseOf = (pod: KubeObject): unknown => obj((pod as Obj).status).phase;
const uidOf = (object: KubeObject): string => object.metadata.uid ?? "";
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

/** What one sync of one Job works out before and while writing it. */
interface Sync {
  /** The queue key (`job:<namespace>/<name>`). */
  readonly key: string;
  job: KubeObject;
  readonly spec: JobSpec;
  /** The pods as they were when the sync began. */
  readonly pods: readonly KubeObject[];
  readonly active: readonly KubeObject[];
  /** The status being built (a copy of the stored one). */
  readonly status: Obj;
  readonly uncounted: { readonly succeeded: Set<string>; readonly failed: Set<string> };
  readonly prevIndexes: readonly number[];
  readonly succeededIndexes: readonly number[];
  readonly record: BackoffRecord;
  readonly now: number;
  activeCount: number;
  ready: number;
  terminating: number;
  succeeded: number;
  failed: number;
  finished: JobCondition | undefined;
  refused: boolean;
}

/** The Job controller as a sim controller. */
export function jobController(): SimController {
  /** Pods by owning Job uid, then by `namespace/name`. */
  const owned = new Map<string, Map<string, KubeObject>>();
  /** Jobs by uid, to tell a pod's live owner from a gone or finished one. */
  const jobs = new Map<string, KubeObject>();
  /** Pod-failure backoff per Job key. */
  const records = new Map<string, BackoffRecord>();
  const failures = new FailureBackoff();
  let cluster: Cluster | undefined;
  const unwatch: (() => void)[] = [];
  const queue = new KeyQueue((key) => (key.startsWith("pod:") ? releaseOrphan(key.slice(4)) : sync(key)));

  const podsOf = (job: KubeObject): KubeObject[] => [...(owned.get(uidOf(job))?.values() ?? [])];
  const latest = (pod: KubeObject): KubeObject | undefined => (pod.metadata.ownerReferences ?? []).map((r) => owned.get(r.uid)?.get(keyOf(pod))).find((p) => p !== undefined);

  async function sync(key: string): Promise<void> {
    if (!cluster) return;
    const [namespace, name] = splitNsKey(key.slice(4));
    const job = await cluster.find(JOB, namespace, name);
    if (!job || finished(obj((job as Obj).status))) {
      records.delete(key);
      failures.forget(key);
      if (job) await releaseFinalizers(podsOf(job).filter(hasTracking));
      return;
    }
    const s = observe(key, job);
    decideFailure(s);
    if (s.finished) await deleteActive(s);
    else await manage(s);
    await track(s);
    if (!s.refused) failures.forget(key);
  }

  /** The counts and state a sync starts from. */
  function observe(key: string, job: KubeObject): Sync {
    const now = Date.now();
    const spec = jobSpec(job);
    const status = structuredClone(obj((job as Obj).status));
    const pods = podsOf(job);
    const uncountedStatus = obj(status.uncountedTerminatedPods);
    const uncounted = { succeeded: new Set(strings(uncountedStatus.succeeded)), failed: new Set(strings(uncountedStatus.failed)) };
    const completions = spec.completions ?? 0;
    const counts = (pod: KubeObject, counted: Set<string>): boolean => hasTracking(pod) && !counted.has(uidOf(pod)) && (!spec.indexed || validIndex(pod, completions));
    const newSucceeded = pods.filter((p) => counts(p, uncounted.succeeded) && phaseOf(p) === "Succeeded");
    const newFailed = pods.filter((p) => counts(p, uncounted.failed) && isPodFailed(p, spec));
    const active = pods.filter(isActive);
    if (status.startTime === undefined && !spec.suspend) status.startTime = stampNow();
    const prevIndexes = spec.indexed ? parseIndexes(status.completedIndexes, completions) : [];
    const newIndexes = pods.filter((p) => phaseOf(p) === "Succeeded" && hasTracking(p) && validIndex(p, completions)).map((p) => completionIndex(p) ?? 0);
    const succeededIndexes = spec.indexed ? mergeIndexes(prevIndexes, newIndexes) : [];
    return {
      key,
      job,
      spec,
      pods,
      active,
      status,
      uncounted,
      prevIndexes,
      succeededIndexes,
      record: nextBackoffRecord(records.get(key) ?? NO_FAILURES, newSucceeded.map((p) => finishedAt(p, now)), newFailed.map((p) => finishedAt(p, now))),
      now,
      activeCount: active.length,
      ready: active.filter(podReady).length,
      terminating: pods.filter(isTerminating).length,
      succeeded: spec.indexed ? succeededIndexes.length : Number(status.succeeded ?? 0) + newSucceeded.length + uncounted.succeeded.size,
      failed: Number(status.failed ?? 0) + newFailed.length + uncounted.failed.size,
      finished: undefined,
      refused: false,
    };
  }

  /** A finish already decided, or a new failure: backoff limit, then active deadline. */
  function decideFailure(s: Sync): void {
    const conditions = s.status.conditions;
    const met = trueCondition(conditions, "SuccessCriteriaMet");
    const target = trueCondition(conditions, "FailureTarget");
    if (met) s.finished = newCondition("SuccessCriteriaMet", "True", String(met.reason ?? ""), String(met.message ?? ""), stampNow());
    else if (target) s.finished = newCondition("Failed", "True", String(target.reason ?? ""), String(target.message ?? ""), stampNow());
    else if (s.failed > s.spec.backoffLimit || pastBackoffLimitOnFailure(s.spec.restartPolicy, s.spec.backoffLimit, s.pods)) {
      s.finished = newCondition("FailureTarget", "True", BACKOFF_LIMIT_EXCEEDED.reason, BACKOFF_LIMIT_EXCEEDED.message, stampNow());
    } else {
      const left = deadlineRemainingMs(s.spec.activeDeadlineSeconds, s.status.startTime, s.spec.suspend, s.now);
      if (left === 0) s.finished = newCondition("FailureTarget", "True", DEADLINE_EXCEEDED.reason, DEADLINE_EXCEEDED.message, stampNow());
      else if (left !== undefined) queue.addAfter(s.key, left);
    }
  }

  /** A failing Job's active pods go, keeping their finalizers so that they count as failed. */
  async function deleteActive(s: Sync): Promise<void> {
    const { deleted, deletedReady } = await deletePods(s, s.active, false);
    // Not every pod could be deleted: the Job is not finished yet.
    if (deleted !== s.active.length) s.finished = undefined;
    s.activeCount -= deleted;
    s.terminating += deleted;
    s.ready -= deletedReady;
  }

  /** manageJob, then whether the Job is complete, then the Suspended condition. */
  async function manage(s: Sync): Promise<void> {
    const managed = !s.job.metadata.deletionTimestamp;
    if (managed) await manageJob(s);
    const complete = s.spec.completions === undefined ? s.succeeded > 0 && s.activeCount === 0 : s.succeeded >= s.spec.completions && s.activeCount === 0;
    if (complete) s.finished = newCondition("SuccessCriteriaMet", "True", COMPLETIONS_REACHED.reason, COMPLETIONS_REACHED.message, stampNow());
    else if (managed) await suspendCondition(s);
  }

  async function manageJob(s: Sync): Promise<void> {
    if (s.spec.suspend) return removeExcess(s, activePodsForRemoval(s.spec, s.active, s.active.length));
    const want = wantActive(s.spec, s.succeeded, s.activeCount);
    const excess = activePodsForRemoval(s.spec, s.active, Math.max(0, s.activeCount - want));
    if (excess.length > 0) return removeExcess(s, excess);
    const missing = want - (s.spec.onlyReplaceFailed ? s.terminating : 0) - s.activeCount;
    if (missing > 0) await createMissing(s, missing);
  }

  /** Pods the Job no longer wants: released first, so that they do not count as failed. */
  async function removeExcess(s: Sync, pods: readonly KubeObject[]): Promise<void> {
    if (pods.length === 0) return;
    const { deleted, deletedReady } = await deletePods(s, pods, true);
    s.activeCount -= deleted;
    s.terminating += deleted;
    s.ready -= deletedReady;
  }

  async function createMissing(s: Sync, missing: number): Promise<void> {
    if (!cluster) return;
    const wait = remainingBackoffMs(s.record, s.now);
    if (wait > 0) return void queue.addAfter(s.key, Math.max(wait, MIN_DELAY_MS));
    const completions = s.spec.completions ?? 0;
    const activeIndexes = s.active.map(completionIndex).filter((i): i is number => i !== undefined);
    const indexes: (number | undefined)[] = s.spec.indexed ? firstPendingIndexes(s.succeededIndexes, activeIndexes, missing, completions) : new Array<undefined>(missing).fill(undefined);
    for (const index of indexes) {
      const result = await createPod(cluster, s.job, podForJob(s.job, index), SOURCE);
      if (!result.ok) {
        // Slow start: the first refusal stops this round; the next waits longer each time.
        s.refused = true;
        queue.addAfter(s.key, failures.next(s.key));
        return;
      }
      s.activeCount += 1;
    }
  }

  async function suspendCondition(s: Sync): Promise<void> {
    if (!cluster) return;
    const conditions = arr(s.status.conditions);
    const [list, changed] = s.spec.suspend ? ensureCondition(conditions, "Suspended", "True", "JobSuspended", "Job suspended", stampNow()) : ensureCondition(conditions, "Suspended", "False", "JobResumed", "Job resumed", stampNow());
    if (!changed) return;
    s.status.conditions = list;
    if (s.spec.suspend) return recordEvent(cluster, s.job, "Normal", "Suspended", "Job suspended", SOURCE);
    // ActiveDeadlineSeconds counts from the resume, as for a Job created suspended.
    s.status.startTime = stampNow();
    await recordEvent(cluster, s.job, "Normal", "Resumed", "Job resumed", SOURCE);
  }

  async function deletePods(s: Sync, pods: readonly KubeObject[], release: boolean): Promise<{ deleted: number; deletedReady: number }> {
    let deleted = 0;
    let deletedReady = 0;
    for (const pod of pods) {
      if (!cluster) break;
      if (release && hasTracking(pod) && !(await releaseFinalizer(pod))) continue;
      if (!(await deletePod(cluster, s.job, pod, SOURCE))) continue;
      deleted += 1;
      if (podReady(pod)) deletedReady += 1;
    }
    return { deleted, deletedReady };
  }

  /**
   * trackJobStatusAndRemoveFinalizers: finished pods go to uncountedTerminatedPods (and
   * the interim condition is written) before their finalizers are removed; then they
   * are counted, and the terminal condition is set once nothing is left uncounted or
   * terminating.
   */
  async function track(s: Sync): Promise<void> {
    const toRelease = collectFinished(s);
    if (s.finished?.type === "FailureTarget") {
      s.status.conditions = [...arr(s.status.conditions), { ...s.finished }];
      s.finished = newCondition("Failed", "True", s.finished.reason, s.finished.message, stampNow());
    }
    if (s.finished?.type === "SuccessCriteriaMet") {
      if (!trueCondition(s.status.conditions, "SuccessCriteriaMet")) s.status.conditions = [...arr(s.status.conditions), { ...s.finished }];
      s.finished = newCondition("Complete", "True", s.finished.reason, s.finished.message, stampNow());
    }
    await writeStatus(s);
    records.set(s.key, s.record);
    const released = new Set<string>();
    for (const pod of toRelease) if (await releaseFinalizer(pod)) released.add(uidOf(pod));
    const withFinalizer = new Set(s.pods.filter((p) => hasTracking(p) && !released.has(uidOf(p))).map(uidOf));
    countUncounted(s, withFinalizer);
    const done = enactFinished(s);
    await writeStatus(s);
    if (done) await recordFinished(s);
  }

  /** The pods whose finalizer can go now, each added to the uncounted lists (Indexed successes to completedIndexes). */
  function collectFinished(s: Sync): KubeObject[] {
    const completions = s.spec.completions ?? 0;
    const failing = s.finished !== undefined && s.finished.type !== "SuccessCriteriaMet";
    const newIndexes: number[] = [];
    const out: KubeObject[] = [];
    for (const pod of s.pods) {
      if (!hasTracking(pod)) continue;
      const failed = isPodFailed(pod, s.spec);
      const succeeded = phaseOf(pod) === "Succeeded";
      if (!s.job.metadata.deletionTimestamp && !s.finished && !succeeded && !failed) continue;
      out.push(pod);
      const uid = uidOf(pod);
      if (succeeded && !s.uncounted.failed.has(uid)) {
        const index = completionIndex(pod);
        if (!s.spec.indexed) s.uncounted.succeeded.add(uid);
        else if (index !== undefined && index < completions && !s.prevIndexes.includes(index)) newIndexes.push(index);
      } else if ((failed || failing) && (!s.spec.indexed || validIndex(pod, completions))) {
        s.uncounted.failed.add(uid);
      }
    }
    if (s.spec.indexed) {
      const all = mergeIndexes(s.succeededIndexes, newIndexes);
      s.status.completedIndexes = formatIndexes(all);
      s.status.succeeded = all.length;
    }
    return out;
  }

  /** cleanUncountedPodsWithoutFinalizers: pods no longer holding the finalizer (or gone) move to the counters. */
  function countUncounted(s: Sync, withFinalizer: ReadonlySet<string>): void {
    for (const [set, field] of [[s.uncounted.succeeded, "succeeded"], [s.uncounted.failed, "failed"]] as const) {
      for (const uid of [...set]) {
        if (withFinalizer.has(uid)) continue;
        set.delete(uid);
        s.status[field] = Number(s.status[field] ?? 0) + 1;
      }
    }
  }

  /** enactJobFinished: the terminal condition (and completionTime) once nothing is uncounted or terminating. */
  function enactFinished(s: Sync): boolean {
    if (!s.finished || s.uncounted.succeeded.size + s.uncounted.failed.size > 0 || s.terminating > 0) return false;
    const [list] = ensureCondition(arr(s.status.conditions), s.finished.type, "True", s.finished.reason, s.finished.message, s.finished.lastTransitionTime);
    s.status.conditions = list;
    if (s.finished.type === "Complete") s.status.completionTime = s.finished.lastTransitionTime;
    return true;
  }

  async function recordFinished(s: Sync): Promise<void> {
    if (!cluster || !s.finished) return;
    if (s.finished.type !== "Complete") return recordEvent(cluster, s.job, "Warning", s.finished.reason, s.finished.message, SOURCE);
    if (s.spec.completions !== undefined && Number(s.status.succeeded ?? 0) > s.spec.completions) {
      await recordEvent(cluster, s.job, "Warning", "TooManySucceededPods", "Too many succeeded pods running after completion count reached", SOURCE);
    }
    await recordEvent(cluster, s.job, "Normal", "Completed", "Job completed", SOURCE);
  }

  /** The status as upstream serialises it: zero counters omitted, ready/terminating/uncountedTerminatedPods always present. */
  function statusOf(s: Sync): Obj {
    const status: Obj = { ...s.status, active: s.activeCount, ready: s.ready, terminating: s.terminating };
    status.uncountedTerminatedPods = {
      ...(s.uncounted.succeeded.size > 0 ? { succeeded: [...s.uncounted.succeeded] } : {}),
      ...(s.uncounted.failed.size > 0 ? { failed: [...s.uncounted.failed] } : {}),
    };
    for (const field of ["active", "succeeded", "failed"]) if (!status[field]) delete status[field];
    if (status.completedIndexes === "") delete status.completedIndexes;
    return status;
  }

  async function writeStatus(s: Sync): Promise<void> {
    if (!cluster) return;
    const status = statusOf(s);
    if (jsonEqual(status, (s.job as Obj).status)) return;
    s.job = await cluster.update({ ...s.job, status } as KubeObject, { subresource: "status" });
  }

  /** Removes the tracking finalizer (as upstream: a strategic `$deleteFromPrimitiveList`); true when it is gone. */
  async function releaseFinalizer(pod: KubeObject): Promise<boolean> {
    if (!cluster) return false;
    const current = latest(pod) ?? pod;
    if (!hasTracking(current)) return true;
    try {
      await cluster.patch(POD, pod.metadata.namespace, pod.metadata.name ?? "", { metadata: { [`$deleteFromPrimitiveList/finalizers`]: [TRACKING_FINALIZER] } }, "strategic");
      return true;
    } catch (error) {
      if (isNotFound(error)) return true;
      throw error;
    }
  }

  async function releaseFinalizers(pods: readonly KubeObject[]): Promise<void> {
    for (const pod of pods) await releaseFinalizer(pod);
  }

  /** A pod still holding the finalizer whose Job is gone or finished: nothing will count it, so it is released. */
  async function releaseOrphan(key: string): Promise<void> {
    if (!cluster) return;
    const [namespace, name] = splitNsKey(key);
    const pod = await cluster.find(POD, namespace, name);
    if (!pod || !hasTracking(pod) || liveOwner(pod)) return;
    await releaseFinalizer(pod);
  }

  /** The unfinished Job controlling `pod`, if any. */
  function liveOwner(pod: KubeObject): KubeObject | undefined {
    const owner = controllerOf(pod);
    const job = owner?.kind === "Job" ? jobs.get(owner.uid) : undefined;
    return job && !finished(obj((job as Obj).status)) ? job : undefined;
  }

  /** Forgets a pod under a Job that no longer controls it (the pod was orphaned). */
  function forgetUnder(jobUid: string, pod: KubeObject): void {
    const pods = owned.get(jobUid);
    pods?.delete(keyOf(pod));
    if (pods?.size === 0) owned.delete(jobUid);
  }

  function onPod(event: ClusterEvent): void {
    const pod = event.object;
    const owner = controllerOf(pod);
    const before = event.oldObject ? controllerOf(event.oldObject) : undefined;
    if (before?.kind === "Job" && before.uid !== owner?.uid) forgetUnder(before.uid, pod);
    if (owner?.kind === "Job") {
      if (event.type === "DELETED") forgetUnder(owner.uid, pod);
      else owned.set(owner.uid, (owned.get(owner.uid) ?? new Map<string, KubeObject>()).set(keyOf(pod), pod));
      if (jobs.has(owner.uid)) queue.add(`job:${pod.metadata.namespace ?? ""}/${owner.name}`);
    }
    if (event.type !== "DELETED" && hasTracking(pod) && !liveOwner(pod)) queue.add(`pod:${keyOf(pod)}`);
  }

  function onJob(event: ClusterEvent): void {
    const job = event.object;
    if (event.type === "DELETED") {
      jobs.delete(uidOf(job));
      for (const pod of podsOf(job)) if (hasTracking(pod)) queue.add(`pod:${keyOf(pod)}`);
    } else {
      jobs.set(uidOf(job), job);
    }
    queue.add(`job:${keyOf(job)}`);
  }

  return {
    name: "job-controller",
    start(c: Cluster): void {
      cluster = c;
      unwatch.push(c.watch(JOB, onJob), c.watch(POD, onPod));
    },
    async stop(): Promise<void> {
      for (const u of unwatch) u();
      await queue.stop();
    },
  };
}
