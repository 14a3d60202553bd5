/**
 * Snapshot delivery: a watch event marks the parent keys it maps to dirty; a dirty key
 * is sent as a snapshot built from the caches, and the Worker answers with a plan.
 */
import { objectKey, refOf, splitKey, type ClaimToken, type ControllerManifest, type KubeObject, type ObjectRef, type Plan, type ReconcileRequest, type Trigger, type Watch } from "../../protocol/index.ts";
import type { Informers } from "../store/caches.ts";
import { reconcileRequest } from "../../protocol/snapshot/build.ts";
import { DeliveredFields, fromCache } from "../../protocol/snapshot/fields.ts";
import { parentIsNamespaced, parentKeys, selfWatch, type ParentsIn } from "../../protocol/snapshot/mapping.ts";
import type { WorkQueue } from "../queue/workqueue.ts";
import type { WorkerClient } from "./worker-client.ts";
import { queueKey } from "../queue/key.ts";
import { OwnStatusWrites } from "../route/echoes.ts";

/** What the Worker answered for one queue key, and the object that receives its failures' Warning Events. */
export interface Delivered {
  readonly plan: Plan;
  readonly parent: ObjectRef | undefined;
  /** How many watch events an events batch carried (for the debug log). */
  readonly events?: number;
}

/** One watch of one snapshot controller, resolved once per manifest for the event path. */
export interface SnapshotRoute {
  readonly controller: ControllerManifest;
  readonly watch: Watch;
  /** The watch of the controller's parents (whose own status writes echo back on it). */
  readonly self: boolean;
  readonly parentNamespaced: boolean;
  readonly parents: ParentsIn;
}

/** Snapshot delivery for every snapshot controller. */
export class SnapshotDelivery {
  readonly #queue: WorkQueue<Trigger>;
  readonly #informers: Informers;
  readonly #worker: WorkerClient;
  readonly #view: (watch: Watch) => ReturnType<Informers["forWatch"]>;
  /** The status writes of this relay's plans, whose echoes wake no parent (ADR 0018). */
  readonly ownWrites = new OwnStatusWrites();
  readonly #fields = new DeliveredFields();

  constructor(queue: WorkQueue<Trigger>, informers: Informers, worker: WorkerClient) {
    this.#queue = queue;
    this.#informers = informers;
    this.#worker = worker;
    this.#view = (watch) => informers.forWatch(watch);
  }

  /** The route of events of `watch` to `controller`'s parents. */
  route(controller: ControllerManifest, watch: Watch): SnapshotRoute {
    const self = selfWatch(controller);
    // An index lookup: the parents' cache indexes the paths of the controller's `reference` mappings.
    const parents: ParentsIn = (_namespace, path, value) => (self && this.#informers.forWatch(self)?.withField(path, value)) ?? [];
    return { controller, watch, self: self === watch, parentNamespaced: parentIsNamespaced(controller), parents };
  }

  /**
   * Marks dirty every parent key the trigger's object maps to, and those its previous
   * state mapped to (after the watch's batch period, unless it is a deletion). The echo
   * of a status write of our own on a parent marks nothing: false then.
   */
  enqueue(route: SnapshotRoute, trigger: Trigger, previous?: KubeObject): boolean {
    if (route.self && trigger.type === "MODIFIED" && this.ownWrites.isEcho(trigger.object, previous)) return false;
    const batch = trigger.type === "DELETED" && route.watch.batchDeletions !== true ? 0 : (route.watch.batchMilliseconds ?? 0);
    // A deletion's trigger is sent with the object's last state: the watch's fields of it (others are cut to a stub when sent).
    const queued = trigger.type === "DELETED" ? { ...trigger, object: fromCache(this.#fields.ofWatch(route.watch), this.#view(route.watch))(trigger.object) } : trigger;
    for (const key of dirtyKeys(route, trigger.object, previous)) {
      this.#queue.addBatched(queueKey(route.controller.name, key), queued, batch);
    }
    return true;
  }

  /** Marks every parent of the controller dirty. */
  resync(controller: ControllerManifest): void {
    const self = selfWatch(controller);
    const cache = self && this.#informers.forWatch(self);
    for (const parent of cache?.list() ?? []) this.#queue.add(queueKey(controller.name, objectKey(parent.metadata)));
  }

  /** Hands back the claim tokens of actions of a plan that were not applied. */
  async releaseClaims(claims: readonly ClaimToken[]): Promise<void> {
    await this.#worker.releaseClaims(claims);
  }

  /** Sends the snapshot of `key`. */
  async send(controller: ControllerManifest, key: string, triggers: Trigger[]): Promise<Delivered> {
    let cached: ObjectRef | undefined;
    // Built once the Worker client's body budget has room for it (a node's snapshot of 1,000
    // pods is ~1 MB), and garbage once encoded: only its parent's name is kept.
    const build = (): ReconcileRequest => {
      const request = reconcileRequest(controller, key, this.#informers, triggers, new Date(), this.#fields);
      cached = request.parent ? refOf(request.parent) : undefined;
      return request;
    };
    const plan = await this.#worker.reconcile(controller.name, build);
    const { namespace, name } = splitKey(key);
    // A parent gone from the cache is still named: Warning Events of failed actions go to it.
    const parent = cached ?? (controller.parent ? { ...controller.parent, name, ...(namespace ? { namespace } : {}) } : undefined);
    return { plan, parent };
  }
}

/**
 * The parent keys a change makes dirty: those the object maps to now and those its
 * previous state mapped to. A child whose label (or owner) moves it from parent A to B
 * must wake A too, or A keeps counting a child it lost until the next full resync.
 */
export function dirtyKeys(route: Pick<SnapshotRoute, "watch" | "parentNamespaced" | "parents">, object: KubeObject, previous?: KubeObject): string[] {
  const keys = parentKeys(route.watch.mapping, object, route.parentNamespaced, route.parents);
  if (!previous) return keys;
  const before = parentKeys(route.watch.mapping, previous, route.parentNamespaced, route.parents).filter((key) => !keys.includes(key));
  return before.length === 0 ? keys : [...keys, ...before];
}
