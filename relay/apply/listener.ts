/**
 * What the apply stage tells the stages after it (narration, failure counts) and the
 * record of its own status writes (the router's echo filter, `route/echoes.ts`), through
 * one typed interface: the applier imports none of them, the engine hands them in.
 */
import type { Action, EventAction, KubeObject, ObjectRef, StatusError } from "../../protocol/index.ts";

/** What a plan (or one action) is applied for. */
export interface ApplyTarget {
  /** The object that receives the Warning Events of its failures. */
  readonly parent?: ObjectRef | undefined;
  /** The controller whose plan it is. */
  readonly controller?: string | undefined;
  /** The work-queue key whose reconcile made the plan; none for the outbox's and the APIs' plans. */
  readonly key?: string | undefined;
}

/** One action applied. */
export interface Applied {
  readonly action: Action;
  /** What the API server returned (the created object, with its generated name), if anything. */
  readonly answer: KubeObject | undefined;
  /** The plan's Events right after the action, which report it (a `Recreated` one: the action replaces a deleted object). */
  readonly reports: readonly EventAction[];
  readonly target: ApplyTarget;
}

/** Told of each action the applier sends; every method is optional, cheap, and must not throw. */
export interface ApplyListener {
  /** `action` is being sent; {@link settled} follows exactly once. */
  sending?(action: Action, target: ApplyTarget): void;
  /** The answer to `action`: what the API server returned, `undefined` when it failed. */
  settled?(action: Action, answer: KubeObject | undefined, target: ApplyTarget): void;
  /** `action` was applied. */
  applied?(applied: Applied): void;
  /** `action` failed for good (a Warning Event on the parent reports it too). */
  failed?(action: Action, error: StatusError, target: ApplyTarget): void;
}
