/**
 * The stage before apply: every plan enters the apply stage through it (snapshot and
 * events deliveries, the outbox, the front's APIs) and leaves it bounded by its
 * controller's declared scope ({@link actionAllowed}): plurals come from the controller's
 * watches, else from discovery; a refused action is not applied, and is counted
 * (`edgeloop_refused_actions_total`), logged, and recorded as a Warning Event
 * `ActionRefused` on the parent when there is one. A `root` delete is resolved to the
 * delete of its root owner here, before it is checked.
 */
import type { Action, ControllerManifest, Plan, TypeRef } from "../../protocol/index.ts";
import type { Logger } from "../../cli/log.ts";
import type { KubeClient } from "../kube/client.ts";
import type { Metrics } from "../ops/metrics.ts";
import { rootOwner } from "./root-owner.ts";
import type { ApplyResult, EventRecorder } from "./applier.ts";
import type { ApplyTarget } from "./listener.ts";
import { actionAllowed, actionKind, watchedPlurals, type Scope } from "./scope.ts";

/** Whose plan it is, where it may act, and what it is applied for. */
export interface PlanContext {
  readonly controller: ControllerManifest;
  readonly scope: Scope;
  readonly target: ApplyTarget;
}

/** The apply stage's input: where deliveries hand their plans (the guard, then the applier). */
export interface PlanSink {
  /** Applies what `plan` may do in `context`. */
  apply(plan: Plan, context: PlanContext): Promise<ApplyResult>;
  /** Applies one action; rejects when it is refused or fails. */
  applyAction(action: Action, context: PlanContext): Promise<void>;
}

/** What the guard hands a plan to once checked (the applier). */
export interface GuardedApplier extends EventRecorder {
  apply(plan: Plan, target: ApplyTarget): Promise<ApplyResult>;
  applyAction(action: Action, target: ApplyTarget): Promise<void>;
}

/** What the guard uses. */
export interface ScopeGuardDeps {
  readonly client: Pick<KubeClient, "resource" | "path" | "request">;
  readonly metrics: Metrics;
  readonly log: Logger;
  readonly applier: GuardedApplier;
}

/** Checks plans against their controller's declared scope, then applies what is allowed. */
export class ScopeGuard implements PlanSink {
  readonly #deps: ScopeGuardDeps;

  constructor(deps: ScopeGuardDeps) {
    this.#deps = deps;
  }

  async apply(plan: Plan, context: PlanContext): Promise<ApplyResult> {
    const allowed = await this.filter(plan, context.controller, context.scope, context.target.parent);
    return this.#deps.applier.apply(allowed, context.target);
  }

  async applyAction(action: Action, context: PlanContext): Promise<void> {
    const resolved = await this.resolve(action);
    const reason = await this.check(resolved, context.controller, context.scope);
    if (reason !== null) throw new Error(`refused: ${reason}`);
    await this.#deps.applier.applyAction(resolved, context.target);
  }

  /** `null` when allowed, else why not; a refusal is counted and logged (not recorded as an Event). */
  async check(action: Action, controller: ControllerManifest, scope: Scope): Promise<string | null> {
    const plural = await this.#plural(controller, actionKind(action));
    const reason = actionAllowed(action, controller, scope, () => plural);
    if (reason !== null) this.#count(action, controller, reason);
    return reason;
  }

  /**
   * `plan` without the actions outside the scope; each refused one is reported. A `root`
   * delete becomes the delete of its target's root owner first, and it is that one the
   * scope must allow (a controller deletes only kinds it declares it writes).
   */
  async filter(plan: Plan, controller: ControllerManifest, scope: Scope, parent: ApplyTarget["parent"]): Promise<Plan> {
    const kept: Action[] = [];
    let changed = false;
    for (const given of plan.actions) {
      const action = await this.resolve(given);
      changed ||= action !== given;
      const reason = await this.check(action, controller, scope);
      if (reason === null) kept.push(action);
      else if (parent) await this.#deps.applier.record({ type: "event", target: parent, eventType: "Warning", reason: "ActionRefused", message: `refused: ${reason}`.slice(0, 1024) }).catch(() => undefined);
    }
    return !changed && kept.length === plan.actions.length ? plan : { ...plan, actions: kept };
  }

  /** A `root` delete as the delete of the root owner (pinned to its uid); any other action as it is. */
  async resolve(action: Action): Promise<Action> {
    if (action.type !== "delete" || action.root !== true) return action;
    const { root: _root, preconditions, ...rest } = action;
    const target = await rootOwner(this.#deps.client, action.target);
    if (target === action.target) return { ...rest, target, ...(preconditions ? { preconditions } : {}) };
    // The target's preconditions were about the target: the root is pinned to its own uid.
    return { ...rest, target, ...(target.uid !== undefined ? { preconditions: { uid: target.uid } } : {}) };
  }

  async #plural(controller: ControllerManifest, kind: TypeRef | undefined): Promise<string | undefined> {
    if (!kind) return undefined;
    const watched = watchedPlurals(controller).get(`${kind.apiVersion}|${kind.kind}`);
    if (watched !== undefined) return watched;
    try {
      return (await this.#deps.client.resource(kind)).plural;
    } catch {
      return undefined;
    }
  }

  #count(action: Action, controller: ControllerManifest, reason: string): void {
    this.#deps.metrics.inc("edgeloop_refused_actions_total", { controller: controller.name, action: action.type });
    this.#deps.log("warn", "action refused: outside the controller's declared scope", { controller: controller.name, action: action.type, reason });
  }
}
