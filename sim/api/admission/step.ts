/**
 * An admission step and how a chain of them runs. Each step has one job; the chains
 * (chain.ts) list them in the order kube-apiserver runs them.
 */
import type { KubeObject } from "../../../protocol/index.ts";
import type { Write } from "../write.ts";

/** One step of the admission chain. */
export interface AdmissionStep {
  /** What kube-apiserver calls it (the admission plugin's name, or the stage). */
  readonly name: string;
  /**
   * Create and update: the draft as this step leaves it; throws an ApiError to refuse.
   * A promise only when the step calls out (the webhooks); a step that has nothing to do
   * returns the draft it was given.
   */
  readonly admit?: (draft: KubeObject, write: Write) => KubeObject | Promise<KubeObject>;
  /** Delete: throws an ApiError to refuse; a promise only when the step calls out. */
  readonly admitDelete?: (write: Write) => void | Promise<void>;
}

/**
 * Runs a create's or an update's `steps` in order on its draft. Synchronous until a step
 * answers with a promise (a webhook call), which is awaited before the next: a chain that
 * calls out nowhere costs no promise.
 */
export function admit(steps: readonly AdmissionStep[], draft: KubeObject, write: Write, from = 0): KubeObject | Promise<KubeObject> {
  let current = draft;
  for (let i = from; i < steps.length; i++) {
    const next = steps[i]?.admit?.(current, write) ?? current;
    if (next instanceof Promise) return next.then((admitted) => admit(steps, admitted, write, i + 1));
    current = next;
  }
  return current;
}

/** Runs a delete's `steps` in order, as `admit` does. */
export function admitDelete(steps: readonly AdmissionStep[], write: Write, from = 0): void | Promise<void> {
  for (let i = from; i < steps.length; i++) {
    const done = steps[i]?.admitDelete?.(write);
    if (done instanceof Promise) return done.then(() => admitDelete(steps, write, i + 1));
  }
}
