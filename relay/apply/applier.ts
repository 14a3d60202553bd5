/**
 * Applies a plan's actions in order through the Kubernetes API. A conflict or a
 * transient failure stops the plan (the key is retried with backoff); a permanent
 * failure is recorded as a Warning Event on the parent (`FailedCreate`, `FailedDelete`,
 * else `ReconcileError`) and the plan goes on with the next action (but an Event marked
 * `ifPreviousApplied` right after it is not recorded). An Event that fails transiently is sent again in the
 * background instead (see {@link EVENT_RESEND_DELAYS_MS}).
 */
import type { Action, KubeObject, ObjectRef, Plan } from "../../protocol/index.ts";
import type { Logger } from "../../cli/log.ts";
import { KubeError, type KubeClient } from "../kube/client.ts";
import { narrate, recreatedNames } from "./narrate.ts";

/** How applying a plan ended. */
export type ApplyResult =
  | { readonly ok: true; readonly failed: number }
  /** `unapplied`: the action that failed and those after it (their claim tokens go back to the Worker). */
  | { readonly ok: false; readonly retry: true; readonly error: string; readonly retryAfterMs?: number; readonly unapplied: readonly Action[] };

/**
 * When an Event action that failed transiently is sent again. Not by retrying the plan:
 * the Event reports what the actions before it did, so the retry's level-based reconcile
 * finds nothing left to do and plans no Event (12 of 20 `Recreated` Events were lost so
 * to injected 500/429s).
 */
export const EVENT_RESEND_DELAYS_MS: readonly number[] = [250, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000];

/** The waits before a 403 is asked again; after the last it is final (see PlanApplier's warm-up handling). */
export const FORBIDDEN_RETRY_DELAYS_MS: readonly number[] = [250, 500, 1_000];

/** A bind the API server refused with a Conflict: the pod is bound already, or is another pod now. */
class AlreadyBound extends Error {}

/** How one unit of a plan ended: permanent failures counted, or the transient error that stopped it and what it left. */
interface UnitOutcome {
  /** Its last action that is not an Event was applied (for a one-action unit: that action). */
  readonly applied: boolean;
  readonly failed: number;
  readonly retry: string | undefined;
  /** The API server's `Retry-After` (ms) with the transient error, if it gave one. */
  readonly retryAfterMs?: number | undefined;
  readonly unapplied: readonly Action[];
}

/** `retryAfterMs` of a result or outcome, only when the API server asked for a wait. */
function after(retryAfterMs: number | undefined): { retryAfterMs?: number } {
  return retryAfterMs === undefined ? {} : { retryAfterMs };
}

/**
 * A plan's actions in units: each action that is not an Event, with the Events after it
 * (those marked `ifPreviousApplied` report it); Events at the front are units of their own.
 */
export function unitsOf(actions: readonly Action[]): Action[][] {
  const units: Action[][] = [];
  for (const action of actions) {
    const last = units.at(-1);
    if (action.type === "event" && last !== undefined) last.push(action);
    else units.push([action]);
  }
  return units;
}

/** The run of units from `start` applied at once: up to `concurrency` consecutive units led by the same action type (a unit led by an Event runs alone). */
export function runOf(units: readonly (readonly Action[])[], start: number, concurrency: number): (readonly Action[])[] {
  const type = units[start]?.[0]?.type;
  if (type === undefined) return [];
  let end = start + 1;
  if (type !== "event") while (end < units.length && end - start < concurrency && units[end]?.[0]?.type === type) end += 1;
  return units.slice(start, end);
}

/** Whether an API error may go away on retry. */
export function transient(error: unknown): boolean {
  if (!(error instanceof KubeError)) return true;
  return error.status === 409 || error.status === 429 || error.status >= 500;
}

function describe(action: Action): string {
  switch (action.type) {
    case "create":
      return `create ${action.object.kind} ${action.object.metadata.name ?? `${action.object.metadata.generateName ?? ""}*`}`;
    case "bind":
      return `bind pod ${action.pod.name} to ${action.node}`;
    case "event":
    case "patch":
    case "delete":
    case "status":
      return `${action.type} ${action.target.kind} ${action.target.name}`;
  }
}

/** Told of each status write of a plan as it is sent; called back with the answer (none when it failed). */
export type StatusWriteObserver = (target: ObjectRef) => (answer: KubeObject | undefined) => void;

/** What a plan's application reports besides its result. */
export interface ApplyHooks {
  /** A permanent failure of one action (a Warning Event is recorded on the parent too). */
  readonly onError?: (action: Action, error: KubeError) => void;
  /** Each status write, so its watch echo can be recognised (ADR 0018). */
  readonly onStatusWrite?: StatusWriteObserver;
}

/** Applies plans with one client. */
export class PlanApplier {
  readonly #client: KubeClient;
  readonly #component: string;
  readonly #log: Logger | undefined;

  /** `log` gets one `info` line per applied action (what a person watching the relay wants to see). */
  constructor(client: KubeClient, component = "edgeloop-relay", log?: Logger) {
    this.#client = client;
    this.#component = component;
    this.#log = log;
  }

  /**
   * Applies `plan`; `parent` receives the Warning Events of permanent failures. With a
   * `concurrency` above 1, runs of consecutive actions of one type (each with the
   * `ifPreviousApplied` Events after it) are applied at once, up to that many; the first
   * transient failure in a run stops the plan after the run.
   */
  async apply(plan: Plan, parent: ObjectRef | undefined, hooks: ApplyHooks = {}): Promise<ApplyResult> {
    const recreated = recreatedNames(plan);
    const onError = hooks.onError ?? ((): void => undefined);
    const observe = hooks.onStatusWrite;
    const units = unitsOf(plan.actions);
    const concurrency = plan.concurrency ?? 1;
    if (concurrency > 1) return this.#applyAtOnce(units, concurrency, parent, recreated, onError, observe);
    let failed = 0;
    for (const [index, unit] of units.entries()) {
      const outcome = await this.#applyUnit(unit, parent, recreated, onError, observe);
      failed += outcome.failed;
      if (outcome.retry !== undefined) return { ok: false, retry: true, error: outcome.retry, ...after(outcome.retryAfterMs), unapplied: [...outcome.unapplied, ...units.slice(index + 1).flat()] };
    }
    return { ok: true, failed };
  }

  /**
   * A plan with `concurrency`: the units' leading actions in runs applied at once, then the
   * Events reporting those that were applied (an Event tells what happened; the binds of a
   * scheduling pass should not wait behind the Events of the binds before them). A
   * transient failure stops the runs; the Events of what was applied are still sent.
   */
  async #applyAtOnce(units: readonly Action[][], concurrency: number, parent: ObjectRef | undefined, recreated: ReadonlySet<string>, onError: (action: Action, error: KubeError) => void, observe: StatusWriteObserver | undefined): Promise<ApplyResult> {
    let failed = 0;
    const reports: Action[][] = [];
    let stop: { error: string; retryAfterMs: number | undefined; unapplied: Action[] } | undefined;
    for (let index = 0; index < units.length && stop === undefined; ) {
      const run = runOf(units, index, concurrency);
      const outcomes = await Promise.all(run.map((unit) => this.#applyUnit(unit.slice(0, 1), parent, recreated, onError, observe)));
      outcomes.forEach((outcome, i) => {
        failed += outcome.failed;
        const events = run[i]?.slice(1) ?? [];
        // A reporting Event goes only with an applied action; others go anyway.
        const kept = outcome.applied ? events : events.filter((event) => !(event.type === "event" && event.ifPreviousApplied === true));
        if (outcome.retry === undefined && kept.length > 0) reports.push(kept);
      });
      const stopped = outcomes.findIndex((outcome) => outcome.retry !== undefined);
      if (stopped >= 0) stop = { error: outcomes[stopped]?.retry ?? "", retryAfterMs: Math.max(0, ...outcomes.map((o) => o.retryAfterMs ?? 0)) || undefined, unapplied: [...run.filter((_, i) => outcomes[i]?.retry !== undefined).flat(), ...units.slice(index + run.length).flat()] };
      index += run.length;
    }
    for (let index = 0; index < reports.length; index += concurrency) {
      const outcomes = await Promise.all(reports.slice(index, index + concurrency).map((events) => this.#applyUnit(events, parent, recreated, onError)));
      failed += outcomes.reduce((sum, outcome) => sum + outcome.failed, 0);
    }
    return stop === undefined ? { ok: true, failed } : { ok: false, retry: true, error: stop.error, ...after(stop.retryAfterMs), unapplied: stop.unapplied };
  }

  /** One unit: an action, then the Events that report it (skipped when it failed for good). */
  async #applyUnit(unit: readonly Action[], parent: ObjectRef | undefined, recreated: ReadonlySet<string>, onError: (action: Action, error: KubeError) => void, observe?: StatusWriteObserver): Promise<UnitOutcome> {
    let failed = 0;
    let previousFailed = false;
    for (const [index, action] of unit.entries()) {
      if (action.type === "event" && action.ifPreviousApplied === true && previousFailed) continue;
      previousFailed = false;
      try {
        await this.#applyAllowingWarmUp(action, parent, recreated, observe);
      } catch (error) {
        if (error instanceof AlreadyBound) {
          // Nothing to do, and nothing to report: the Events after it are skipped.
          previousFailed = true;
          this.#log?.("debug", `${describe(action)}: already bound (${error.message})`);
          continue;
        }
        if (action.type === "event" && transient(error)) {
          this.#resendLater(action, parent, recreated, 0);
          continue;
        }
        if (transient(error)) return { applied: false, failed, retry: `${describe(action)}: ${(error as Error).message}`, retryAfterMs: error instanceof KubeError ? error.retryAfterMs : undefined, unapplied: unit.slice(index) };
        const kubeError = error as KubeError;
        failed += 1;
        previousFailed = true;
        onError(action, kubeError);
        if (parent) await this.#event(parent, "Warning", failureReason(action), `${describe(action)}: ${kubeError.message}`).catch(() => undefined);
      }
    }
    return { applied: !previousFailed, failed, retry: undefined, unapplied: [] };
  }

  /**
   * One action; a 403 is asked again after {@link FORBIDDEN_RETRY_DELAYS_MS} before it is
   * taken as final. kube-apiserver answers 403 for a moment after it starts, before its
   * RBAC caches are loaded (kubernetes/kubernetes#121635), and its ServiceAccount admission
   * refuses pods in a namespace until the namespace's `default` ServiceAccount exists: both
   * pass within a second or two, and a 403 taken as final drops the work until the next
   * resync. A refusal that stays is final after ~1.75 s and said once, with its message.
   */
  async #applyAllowingWarmUp(action: Action, parent: ObjectRef | undefined, recreated: ReadonlySet<string>, observe: StatusWriteObserver | undefined): Promise<void> {
    for (const delay of [...FORBIDDEN_RETRY_DELAYS_MS, undefined]) {
      try {
        return await this.applyOne(action, parent, recreated, observe);
      } catch (error) {
        if (delay === undefined || !(error instanceof KubeError) || error.status !== 403) throw error;
        this.#log?.("debug", `${describe(action)}: refused (${error.message}); asking again in ${delay} ms`);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /** One action, logged once applied. A delete of something already gone succeeds. */
  async applyOne(action: Action, parent?: ObjectRef, recreated: ReadonlySet<string> = new Set(), observe?: StatusWriteObserver): Promise<void> {
    const answered = action.type === "status" ? observe?.(action.target) : undefined;
    let created: KubeObject | undefined;
    try {
      created = await this.#send(action);
    } finally {
      answered?.(created);
    }
    const name = action.type === "create" ? (created?.metadata?.name ?? action.object.metadata.name) : undefined;
    this.#log?.("info", narrate(action, parent, { ...(name ? { name } : {}), recreated: name !== undefined && recreated.has(name) }));
  }

  #resendLater(action: Action, parent: ObjectRef | undefined, recreated: ReadonlySet<string>, attempt: number): void {
    const delay = EVENT_RESEND_DELAYS_MS[attempt];
    if (delay === undefined) {
      this.#log?.("warn", `event lost after ${attempt} attempts: ${describe(action)}`);
      return;
    }
    const timer = setTimeout(() => {
      this.applyOne(action, parent, recreated).catch((error: unknown) => {
        if (transient(error)) this.#resendLater(action, parent, recreated, attempt + 1);
        else this.#log?.("warn", `event refused: ${describe(action)}: ${(error as Error).message}`);
      });
    }, delay);
    // A pending Event never keeps the relay from exiting.
    timer.unref();
  }

  /** Sends one action; returns the created object for a create (its name may have been generated), the patched one for a status write. */
  async #send(action: Action): Promise<KubeObject | undefined> {
    const client = this.#client;
    switch (action.type) {
      case "create": {
        const path = await client.path(action.object, action.object.metadata.namespace);
        return (await client.request("POST", path, { body: action.object })) as KubeObject | undefined;
      }
      case "patch": {
        const path = await client.path(action.target, action.target.namespace, action.target.name);
        const patch = action.resourceVersion ? { ...action.patch, metadata: { ...((action.patch.metadata as object | undefined) ?? {}), resourceVersion: action.resourceVersion } } : action.patch;
        await client.request("PATCH", path, { body: patch, contentType: "application/merge-patch+json" });
        return;
      }
      case "status": {
        const path = await client.path(action.target, action.target.namespace, action.target.name, "status");
        const body = action.resourceVersion ? { metadata: { resourceVersion: action.resourceVersion }, status: action.status } : { status: action.status };
        // The answer goes back to the status-write observer only (its resourceVersion); the log names the target.
        return (await client.request("PATCH", path, { body, contentType: "application/merge-patch+json" })) as KubeObject | undefined;
      }
      case "delete": {
        // The scope guard turns a root delete into the delete of the root it found; one that
        // reaches here unresolved must not delete its target instead.
        if (action.root === true) throw new KubeError(400, "BadRequest", "a root delete was not resolved to its root owner");
        const path = await client.path(action.target, action.target.namespace, action.target.name);
        const body = { kind: "DeleteOptions", apiVersion: "v1", ...(action.propagationPolicy ? { propagationPolicy: action.propagationPolicy } : {}), ...(action.preconditions ? { preconditions: action.preconditions } : {}) };
        try {
          await client.request("DELETE", path, { body });
        } catch (error) {
          if (!(error instanceof KubeError && error.status === 404)) throw error;
        }
        return;
      }
      case "bind": {
        const path = await client.path({ apiVersion: "v1", kind: "Pod" }, action.pod.namespace, action.pod.name, "binding");
        try {
          await client.request("POST", path, {
            body: { apiVersion: "v1", kind: "Binding", metadata: { name: action.pod.name, namespace: action.pod.namespace, ...(action.pod.uid ? { uid: action.pod.uid } : {}) }, target: { apiVersion: "v1", kind: "Node", name: action.node } },
          });
        } catch (error) {
          // A Conflict on pods/binding: the pod is bound already (a bind sent again before the
          // watch showed the first), or it is another pod now (its uid differs). Neither is
          // retried; the watch tells the scheduler where the pod is.
          if (error instanceof KubeError && error.status === 409) throw new AlreadyBound(error.message);
          throw error;
        }
        return;
      }
      case "event":
        await this.#event(action.target, action.eventType, action.reason, action.message);
        return;
    }
  }

  async #event(target: ObjectRef, type: "Normal" | "Warning", reason: string, message: string): Promise<void> {
    const namespace = target.namespace ?? "default";
    const stamp = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    const event: KubeObject = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { generateName: `${target.name}.`, namespace },
      involvedObject: { apiVersion: target.apiVersion, kind: target.kind, name: target.name, namespace: target.namespace, ...(target.uid ? { uid: target.uid } : {}) },
      type,
      reason,
      message,
      source: { component: this.#component },
      reportingComponent: this.#component,
      reportingInstance: this.#component,
      firstTimestamp: stamp,
      lastTimestamp: stamp,
      count: 1,
    };
    await this.#client.request("POST", await this.#client.path({ apiVersion: "v1", kind: "Event" }, namespace), { body: event });
  }
}

/** The Event reason of an action that failed for good: Kubernetes' own for creates and deletes (as its workload controllers record them), else `ReconcileError`. */
export function failureReason(action: Action): string {
  if (action.type === "create") return "FailedCreate";
  if (action.type === "delete") return "FailedDelete";
  return "ReconcileError";
}
