/**
 * Snapshot delivery: the snapshot of one dirty parent key, built from the caches by the
 * protocol's builder (`protocol/snapshot/build.ts`) with its triggers compacted
 * (`./triggers.ts`), is sent to the Worker, which answers with a plan.
 */
import { refOf, splitKey, type ControllerManifest, type KubeObject, type ObjectRef, type Plan, type ReconcileRequest, type Trigger } from "../../protocol/index.ts";
import { reconcileRequest } from "../../protocol/snapshot/build.ts";
import type { SnapshotCaches } from "../../protocol/snapshot/caches.ts";
import { fromCache } from "../../protocol/snapshot/fields.ts";
import type { DeliveredCuts } from "../store/delivered-cuts.ts";
import { compactTriggers, type QueuedTrigger } from "./triggers.ts";
import type { WorkerClient } from "./worker-client.ts";

/** What the Worker answered for one queue key, and the object that receives its failures' Warning Events. */
export interface Delivered {
  readonly plan: Plan;
  readonly parent: ObjectRef | undefined;
  /** How many watch events an events batch carried (for the debug log). */
  readonly events?: number;
}

/**
 * The reference of the parent of `key`: the cached object's (with its uid) when there is
 * one, else built from the controller's parent kind and the key (a parent gone from the
 * cache is still named: Warning Events go to it).
 */
export function parentRef(controller: ControllerManifest, key: string, object: KubeObject | null): ObjectRef | undefined {
  if (object) return refOf(object);
  if (!controller.parent) return undefined;
  const { namespace, name } = splitKey(key);
  return { ...controller.parent, name, ...(namespace ? { namespace } : {}) };
}

/** Snapshot delivery for every snapshot controller. */
export class SnapshotDelivery {
  readonly #caches: SnapshotCaches;
  readonly #worker: Pick<WorkerClient, "reconcile">;
  readonly #cuts: DeliveredCuts;

  constructor(caches: SnapshotCaches, worker: Pick<WorkerClient, "reconcile">, cuts: DeliveredCuts) {
    this.#caches = caches;
    this.#worker = worker;
    this.#cuts = cuts;
  }

  /** Sends the snapshot of parent `key`, with the triggers that made it dirty. */
  async send(controller: ControllerManifest, key: string, triggers: readonly QueuedTrigger[]): Promise<Delivered> {
    let parent: ObjectRef | undefined;
    // Built once the Worker client's body budget has room for it (a node's snapshot of 1,000
    // pods is ~1 MB), and garbage once encoded: only its parent's reference is kept.
    // Triggers are compacted here, not as they accumulate: a retry hands the queue back the same ones.
    const build = (): ReconcileRequest => {
      const request = reconcileRequest(controller, key, this.#caches, this.#compact(triggers), new Date(), this.#cuts);
      parent = parentRef(controller, key, request.parent);
      return request;
    };
    const plan = await this.#worker.reconcile(controller.name, build);
    return { plan, parent };
  }

  /** The triggers as sent: compacted, each deletion cut to its watch's fields (once per object: `store/delivered-cuts.ts`). */
  #compact(triggers: readonly QueuedTrigger[]): Trigger[] {
    return compactTriggers(triggers, (deletion) => fromCache(this.#cuts.ofWatch(deletion.watch), deletion.cache)(deletion.object));
  }
}
