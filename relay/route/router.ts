/**
 * The route stage: each change of a cache, to every controller watching it. For a
 * snapshot controller, the echo filter (`./echoes.ts`) first drops the echo of a status
 * write of its own plans on a parent; then the parent keys the change maps to
 * (`./dirty-keys.ts`) are marked dirty in the work queue, with the change as their
 * trigger. An events controller's watch events are buffered in order for its next batch,
 * gathered for its watch's batch period. A change of none of the fields a watch declares
 * (a node's heartbeat, to a controller that reads its conditions' status but not their
 * times) is neither buffered nor marks anything: it is counted.
 * The routes are resolved once per manifest, so an event costs a map lookup, not a scan
 * of the manifest. A resync marks every parent dirty and relists every events controller.
 */
import { kindKey, objectKey, type ControllerManifest, type KubeObject, type Manifest, type Watch, type WatchEvent } from "../../protocol/index.ts";
import { matchesLabelRequirements, parseLabelSelector, type LabelRequirement } from "../../protocol/kube/selectors.ts";
import { parentIsNamespaced, selfWatch, type ParentsIn } from "../../protocol/snapshot/mapping.ts";
import { isDeepStrictEqual } from "node:util";
import { DeliveredFields, WHOLE } from "../../protocol/snapshot/fields.ts";
import type { EventSink } from "../deliver/events.ts";
import type { QueuedTrigger } from "../deliver/triggers.ts";
import type { Metrics } from "../ops/metrics.ts";
import { parentQueueKey, type QueueKey } from "../queue/key.ts";
import type { KeySink } from "../queue/workqueue.ts";
import { cacheId, type Cache, type CacheSubscriber } from "../store/cache.ts";
import type { Caches } from "../store/caches.ts";
import { sameButVersion } from "../store/same-but-version.ts";
import { servingCacheId } from "../store/sharing.ts";
import { batchMilliseconds, dirtyKeys, type SnapshotRoute } from "./dirty-keys.ts";
import type { OwnStatusWrites } from "./echoes.ts";

/** `selector`: the watch shares its kind's unfiltered cache and sees only what its label selector matches (ADR 0016). */
type Route = { readonly kind: string; readonly selector?: readonly LabelRequirement[] } & ({ readonly delivery: "snapshot"; readonly snapshot: SnapshotRoute } | { readonly delivery: "events"; readonly controller: ControllerManifest; readonly watch: Watch });

type ChangeType = "ADDED" | "MODIFIED" | "DELETED";

/** What the router uses. */
export interface RouterDeps {
  readonly caches: Pick<Caches, "forWatch">;
  /** The work queue: dirty parent keys with their triggers. */
  readonly keys: KeySink<QueueKey, QueuedTrigger>;
  /** The events controllers' buffers. */
  readonly events: EventSink;
  /** The echo filter: status writes of this relay's own reconcile plans. */
  readonly echoes: OwnStatusWrites;
  readonly metrics: Metrics;
}

/** Cache changes to controllers. */
export class EventRouter implements CacheSubscriber {
  readonly #deps: RouterDeps;
  /** Each watch's projection (its declared fields), made once per watch. */
  readonly #fields = new DeliveredFields();
  #routes = new Map<string, Route[]>();
  #manifest: Manifest = { version: "v1", controllers: [] };

  constructor(deps: RouterDeps) {
    this.#deps = deps;
  }

  /** Resolves the routes of a manifest (before its caches start: their first lists are routed too). */
  use(manifest: Manifest): void {
    const routes = new Map<string, Route[]>();
    const watches = manifest.controllers.flatMap((c) => c.watches);
    for (const controller of manifest.controllers) {
      for (const watch of controller.watches) {
        const id = servingCacheId(watch, watches);
        const selector = watch.labelSelector && id !== cacheId(watch) ? { selector: parseLabelSelector(watch.labelSelector) } : {};
        const route: Route = controller.delivery === "events" ? { kind: kindKey(watch), ...selector, delivery: "events", controller, watch } : { kind: kindKey(watch), ...selector, delivery: "snapshot", snapshot: this.#snapshotRoute(controller, watch) };
        routes.set(id, [...(routes.get(id) ?? []), route]);
      }
    }
    this.#routes = routes;
    this.#manifest = manifest;
  }

  added(cache: Cache, object: KubeObject, initial: boolean): void {
    this.#route(cache, "ADDED", object, initial, undefined);
  }

  modified(cache: Cache, object: KubeObject, previous: KubeObject | undefined, initial: boolean): void {
    this.#route(cache, "MODIFIED", object, initial, previous);
  }

  deleted(cache: Cache, object: KubeObject, initial: boolean): void {
    this.#route(cache, "DELETED", object, initial, undefined);
  }

  /** Marks every parent of every snapshot controller dirty, and relists every events controller (a periodic resync, SIGHUP). */
  resync(): void {
    for (const controller of this.#manifest.controllers) {
      if (controller.delivery === "events") this.#deps.events.relist(controller);
      else this.#resync(controller);
    }
  }

  /** One change of one cache, to every controller watching it. */
  #route(cache: Cache, type: ChangeType, object: KubeObject, initial: boolean, previous: KubeObject | undefined): void {
    this.#deps.metrics.inc("edgeloop_watch_events_total", { kind: cache.watch.kind, type });
    for (const route of this.#routes.get(cache.id) ?? []) {
      // A shared cache's object outside a watch's selector: an addition is not for it, but a
      // change or deletion may be of an object that just left it (a label removed), which a
      // cache of its own would have delivered as DELETED; its mapping finds the parent, whose
      // snapshot no longer holds the object. Events controllers get only what they select.
      if (route.selector && !matchesLabelRequirements(object.metadata.labels, route.selector) && (type === "ADDED" || route.delivery === "events")) continue;
      if (route.delivery === "events") this.#buffer(route.controller, route.watch, { type, kind: route.kind, object, initial }, previous);
      else this.#markDirty(route.snapshot, route.kind, cache, type, object, previous);
    }
  }

  /** One event to an events controller's buffer, gathered for its watch's batch period; one that tells it nothing is counted. */
  #buffer(controller: ControllerManifest, watch: Watch, event: WatchEvent, previous: KubeObject | undefined): void {
    const buffered = this.#deps.events.buffer(controller, event, { previous, batchMilliseconds: batchMilliseconds(watch, event.type) });
    if (!buffered) this.#deps.metrics.inc("edgeloop_watch_events_unchanged_total", { controller: controller.name });
  }

  /**
   * Marks dirty every parent key the object maps to, and those its previous state mapped
   * to (after the watch's batch period, unless it is a deletion), unless the change is the
   * echo of a status write of our own on a parent (counted, and nothing marked).
   */
  #markDirty(route: SnapshotRoute, kind: string, cache: Cache, type: ChangeType, object: KubeObject, previous: KubeObject | undefined): void {
    if (route.self && type === "MODIFIED" && this.#deps.echoes.isEcho(object, previous)) {
      this.#deps.metrics.inc("edgeloop_status_echoes_ignored_total", { controller: route.controller.name });
      return;
    }
    if (type === "MODIFIED" && previous !== undefined && this.#unchanged(route.watch, previous, object)) {
      this.#deps.metrics.inc("edgeloop_watch_events_unchanged_total", { controller: route.controller.name });
      return;
    }
    // The object as the cache holds it: a deletion is cut to its watch's fields when it is sent (`deliver/triggers.ts`).
    const trigger: QueuedTrigger = { type, kind, object, watch: route.watch, cache };
    const batch = batchMilliseconds(route.watch, type);
    for (const key of dirtyKeys(route, object, previous)) this.#deps.keys.addBatched(parentQueueKey(route.controller.name, key), trigger, batch);
  }

  /**
   * Whether a change tells the watch's controller nothing: the watch declares fields and,
   * cut to them (and to what always identifies, owns and deletes an object), the two states
   * differ in their resourceVersion at most, their labels (what selectors and label
   * mappings read) included.
   */
  #unchanged(watch: Watch, previous: KubeObject, object: KubeObject): boolean {
    const project = this.#fields.ofWatch(watch);
    if (project === WHOLE) return false;
    return isDeepStrictEqual(previous.metadata.labels, object.metadata.labels) && sameButVersion(project(previous), project(object));
  }

  #resync(controller: ControllerManifest): void {
    const self = selfWatch(controller);
    const cache = self && this.#deps.caches.forWatch(self);
    for (const parent of cache?.list() ?? []) this.#deps.keys.add(parentQueueKey(controller.name, objectKey(parent.metadata)));
  }

  /** The route of changes of `watch` to `controller`'s parents. */
  #snapshotRoute(controller: ControllerManifest, watch: Watch): SnapshotRoute {
    const self = selfWatch(controller);
    const caches = this.#deps.caches;
    // An index lookup: the parents' cache indexes the paths of the controller's `reference` mappings.
    const parents: ParentsIn = (_namespace, path, value) => (self && caches.forWatch(self)?.withField(path, value)) ?? [];
    return { controller, watch, self: self === watch, parentNamespaced: parentIsNamespaced(controller), parents };
  }
}
