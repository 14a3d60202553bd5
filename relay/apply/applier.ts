/**
 * Applies a plan's actions in order through the Kubernetes API. A conflict or a
 * transient failure stops the plan (the key is retried with backoff); a permanent
 * failure is recorded as a Warning Event on the parent (`FailedCreate`, `FailedDelete`,
 * else `ReconcileError`) and the plan goes on with the next action (but an Event marked
 * `ifPreviousApplied` right after it is not recorded). An Event that fails transiently is
 * sent again in the background instead (see {@link EVENT_RESEND_DELAYS_MS}). Each action
 * sent, applied or failed is told to the {@link ApplyListener}s (narration, echo records).
 */
import { isPermanent, StatusError, type Action, type EventAction, type KubeObject, type Plan } from "../../protocol/index.ts";
import type { Logger } from "../../cli/log.ts";
import type { KubeClient } from "../kube/client.ts";
import type { ApplyListener, ApplyTarget } from "./listener.ts";
import { ActionRequests, AlreadyBound } from "./requests.ts";
import { describe, runOf, unitsOf } from "./units.ts";

/** How applying a plan ended. */
export type ApplyResult =
  | { readonly ok: true; readonly failed: number }
  /** `unapplied`: the action that failed and those after it (their claim tokens go back to the Worker). */
  | { readonly ok: false; readonly retry: true; readonly error: string; readonly retryAfterMs?: number; readonly unapplied: readonly Action[] };

/** What records the relay's own Events (the scope guard's `ActionRefused`, a refused snapshot's `ReconcileRefused`). */
export interface EventRecorder {
  record(event: EventAction): Promise<void>;
}

/**
 * When an Event action that failed transiently is sent again. Not by retrying the plan:
 * the Event reports what the actions before it did, so the retry's level-based reconcile
 * finds nothing left to do and plans no Event (12 of 20 `Recreated` Events were lost so
 * to injected 500/429s).
 */
export const EVENT_RESEND_DELAYS_MS: readonly number[] = [250, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000];

/** The waits before a 403 is asked again; after the last it is final (see PlanApplier's warm-up handling). */
export const FORBIDDEN_RETRY_DELAYS_MS: readonly number[] = [250, 500, 1_000];

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

/** The Event reason of an action that failed for good: Kubernetes' own for creates and deletes (as its workload controllers record them), else `ReconcileError`. */
export function failureReason(action: Action): string {
  if (action.type === "create") return "FailedCreate";
  if (action.type === "delete") return "FailedDelete";
  return "ReconcileError";
}

const NO_REPORTS: readonly EventAction[] = [];

/** The Events of a unit after its leading action: those that report it. */
function reportsOf(unit: readonly Action[]): readonly EventAction[] {
  return unit.length < 2 ? NO_REPORTS : unit.slice(1).filter((action): action is EventAction => action.type === "event");
}

/** What an applier is made with besides its client. */
export interface PlanApplierOptions {
  /** The Events' `source` (default `edgeloop-relay`). */
  readonly component?: string;
  /** Debug and warning lines about retries and lost Events (what was applied is the listeners' to say). */
  readonly log?: Logger;
  readonly listeners?: readonly ApplyListener[];
}

/** Applies plans with one client. */
export class PlanApplier implements EventRecorder {
  readonly #requests: ActionRequests;
  readonly #listeners: readonly ApplyListener[];
  readonly #log: Logger | undefined;

  constructor(client: Pick<KubeClient, "path" | "request">, options: PlanApplierOptions = {}) {
    this.#requests = new ActionRequests(client, options.component ?? "edgeloop-relay");
    this.#listeners = options.listeners ?? [];
    this.#log = options.log;
  }

  /**
   * Applies `plan`; `target.parent` receives the Warning Events of permanent failures.
   * With a `concurrency` above 1, runs of consecutive actions of one type (each with the
   * `ifPreviousApplied` Events after it) are applied at once, up to that many; the first
   * transient failure in a run stops the plan after the run.
   */
  async apply(plan: Plan, target: ApplyTarget = {}): Promise<ApplyResult> {
    const units = unitsOf(plan.actions);
    const concurrency = plan.concurrency ?? 1;
    if (concurrency > 1) return this.#applyAtOnce(units, concurrency, target);
    let failed = 0;
    for (const [index, unit] of units.entries()) {
      const outcome = await this.#applyUnit(unit, target, reportsOf(unit));
      failed += outcome.failed;
      if (outcome.retry !== undefined) return { ok: false, retry: true, error: outcome.retry, ...after(outcome.retryAfterMs), unapplied: [...outcome.unapplied, ...units.slice(index + 1).flat()] };
    }
    return { ok: true, failed };
  }

  /** One action, told to the listeners once applied; no retry (a front's API answer applies its actions so). */
  applyAction(action: Action, target: ApplyTarget = {}): Promise<void> {
    return this.#applyOne(action, target, []);
  }

  /** Records one of the relay's own Events. */
  record(event: EventAction): Promise<void> {
    return this.#applyOne(event, {}, []);
  }

  /**
   * A plan with `concurrency`: the units' leading actions in runs applied at once, then the
   * Events reporting those that were applied (an Event tells what happened; the binds of a
   * scheduling pass should not wait behind the Events of the binds before them). A
   * transient failure stops the runs; the Events of what was applied are still sent.
   */
  async #applyAtOnce(units: readonly Action[][], concurrency: number, target: ApplyTarget): Promise<ApplyResult> {
    let failed = 0;
    const reports: Action[][] = [];
    let stop: { error: string; retryAfterMs: number | undefined; unapplied: Action[] } | undefined;
    for (let index = 0; index < units.length && stop === undefined; ) {
      const run = runOf(units, index, concurrency);
      const outcomes = await Promise.all(run.map((unit) => this.#applyUnit(unit.slice(0, 1), target, reportsOf(unit))));
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
      const outcomes = await Promise.all(reports.slice(index, index + concurrency).map((events) => this.#applyUnit(events, target, [])));
      failed += outcomes.reduce((sum, outcome) => sum + outcome.failed, 0);
    }
    return stop === undefined ? { ok: true, failed } : { ok: false, retry: true, error: stop.error, ...after(stop.retryAfterMs), unapplied: stop.unapplied };
  }

  /** One unit: an action, then the Events that report it (skipped when it failed for good); `reports` go with its first action. */
  async #applyUnit(unit: readonly Action[], target: ApplyTarget, reports: readonly EventAction[]): Promise<UnitOutcome> {
    let failed = 0;
    let previousFailed = false;
    for (const [index, action] of unit.entries()) {
      if (action.type === "event" && action.ifPreviousApplied === true && previousFailed) continue;
      previousFailed = false;
      try {
        await this.#applyAllowingWarmUp(action, target, index === 0 ? reports : []);
      } catch (error) {
        if (error instanceof AlreadyBound) {
          // Nothing to do, and nothing to report: the Events after it are skipped.
          previousFailed = true;
          this.#log?.("debug", `${describe(action)}: already bound (${error.message})`);
          continue;
        }
        if (!isPermanent(error)) {
          if (action.type === "event") {
            this.#resendLater(action, target, 0);
            continue;
          }
          return { applied: false, failed, retry: `${describe(action)}: ${(error as Error).message}`, retryAfterMs: error instanceof StatusError ? error.retryAfterMs : undefined, unapplied: unit.slice(index) };
        }
        failed += 1;
        previousFailed = true;
        for (const listener of this.#listeners) listener.failed?.(action, error, target);
        if (target.parent) await this.#requests.event(target.parent, "Warning", failureReason(action), `${describe(action)}: ${error.message}`).catch(() => undefined);
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
  async #applyAllowingWarmUp(action: Action, target: ApplyTarget, reports: readonly EventAction[]): Promise<void> {
    for (const delay of [...FORBIDDEN_RETRY_DELAYS_MS, undefined]) {
      try {
        return await this.#applyOne(action, target, reports);
      } catch (error) {
        if (delay === undefined || !(error instanceof StatusError) || error.status !== 403) throw error;
        this.#log?.("debug", `${describe(action)}: refused (${error.message}); asking again in ${delay} ms`);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /** One action sent, its answer and its application told to the listeners. */
  async #applyOne(action: Action, target: ApplyTarget, reports: readonly EventAction[]): Promise<void> {
    for (const listener of this.#listeners) listener.sending?.(action, target);
    let answer: KubeObject | undefined;
    try {
      answer = await this.#requests.send(action);
    } finally {
      for (const listener of this.#listeners) listener.settled?.(action, answer, target);
    }
    for (const listener of this.#listeners) listener.applied?.({ action, answer, reports, target });
  }

  #resendLater(action: EventAction, target: ApplyTarget, attempt: number): void {
    const delay = EVENT_RESEND_DELAYS_MS[attempt];
    if (delay === undefined) {
      this.#log?.("warn", `event lost after ${attempt} attempts: ${describe(action)}`);
      return;
    }
    const timer = setTimeout(() => {
      this.#applyOne(action, target, []).catch((error: unknown) => {
        if (isPermanent(error)) this.#log?.("warn", `event refused: ${describe(action)}: ${error.message}`);
        else this.#resendLater(action, target, attempt + 1);
      });
    }, delay);
    // A pending Event never keeps the relay from exiting.
    timer.unref();
  }
}
