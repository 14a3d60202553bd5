/**
 * Routes each watch event to the controllers watching its cache: marks parent keys dirty
 * for snapshot controllers, buffers the event for events controllers. The routes are
 * resolved once per manifest, so an event costs a map lookup, not a scan of the manifest.
 */
import { kindKey, type ControllerManifest, type KubeObject, type Manifest } from "../../protocol/index.ts";
import type { Metrics } from "../ops/metrics.ts";
import { cacheId, type Cache } from "../store/cache.ts";
import { matchesSelector, parseLabelSelector, type LabelRequirement } from "../../protocol/kube/label-selector.ts";
import { servingCacheId } from "../store/sharing.ts";
import type { EventsDelivery } from "../deliver/events.ts";
import type { SnapshotDelivery, SnapshotRoute } from "../deliver/snapshots.ts";

/** `selector`: the watch shares its kind's unfiltered cache and sees only what its label selector matches (ADR 0016). */
type Route = { readonly kind: string; readonly selector?: readonly LabelRequirement[] } & ({ readonly delivery: "snapshot"; readonly snapshot: SnapshotRoute } | { readonly delivery: "events"; readonly controller: ControllerManifest });

/** Watch events to controllers. */
export class EventRouter {
  readonly #snapshots: SnapshotDelivery;
  readonly #events: EventsDelivery;
  readonly #metrics: Metrics;
  #routes = new Map<string, Route[]>();

  constructor(snapshots: SnapshotDelivery, events: EventsDelivery, metrics: Metrics) {
    this.#snapshots = snapshots;
    this.#events = events;
    this.#metrics = metrics;
  }

  /** Resolves the routes of a manifest (before its informers start: their first lists are routed too). */
  use(manifest: Manifest): void {
    const routes = new Map<string, Route[]>();
    const watches = manifest.controllers.flatMap((c) => c.watches);
    for (const controller of manifest.controllers) {
      for (const watch of controller.watches) {
        const id = servingCacheId(watch, watches);
        const selector = watch.labelSelector && id !== cacheId(watch) ? { selector: parseLabelSelector(watch.labelSelector) } : {};
        const route: Route = controller.delivery === "events" ? { kind: kindKey(watch), ...selector, delivery: "events", controller } : { kind: kindKey(watch), ...selector, delivery: "snapshot", snapshot: this.#snapshots.route(controller, watch) };
        routes.set(id, [...(routes.get(id) ?? []), route]);
      }
    }
    this.#routes = routes;
  }

  /** One event of one cache, to every controller watching it. */
  route(cache: Cache, type: "ADDED" | "MODIFIED" | "DELETED", object: KubeObject, initial: boolean, previous?: KubeObject): void {
    this.#metrics.inc(`edgeloop_watch_events_total{kind="${cache.watch.kind}",type="${type}"}`);
    for (const route of this.#routes.get(cache.id) ?? []) {
      // A shared cache's object outside a watch's selector: an addition is not for it, but a
      // change or deletion may be of an object that just left it (a label removed), which a
      // cache of its own would have delivered as DELETED; its mapping finds the parent, whose
      // snapshot no longer holds the object. Events controllers get only what they select.
      if (route.selector && !matchesSelector(route.selector, object.metadata.labels) && (type === "ADDED" || route.delivery === "events")) continue;
      if (route.delivery === "events") this.#events.buffer(route.controller, { type, kind: route.kind, object, initial });
      else if (!this.#snapshots.enqueue(route.snapshot, { type, kind: route.kind, object }, previous)) this.#metrics.inc(`edgeloop_status_echoes_ignored_total{controller="${route.snapshot.controller.name}"}`);
    }
  }
}
