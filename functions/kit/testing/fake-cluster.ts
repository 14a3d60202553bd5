/**
 * A fake cluster for controller unit tests: a tiny in-memory object store that applies
 * decisions the way the relay and the Worker shell do (409 on a taken name, uid
 * preconditions, merge patches, RecreationLedger claims), so unit tests assert the
 * cluster state that results rather than the mere shape of a plan; and that builds a
 * controller's snapshots with the relay's own builder, reading its objects as the relay's
 * caches serve them, so a unit test sees the snapshot the relay would send. Test support
 * only: nothing the Worker bundles may import `kit/testing` (lint enforces it).
 */
import type { Decided, Decision, SnapshotController } from "../controller.ts";
import type { EventAction, KubeObject, ReconcileRequest, Trigger, TypeRef, Watch } from "../../../protocol/index.ts";
import { ControllerManifest, KubeObject as KubeObjectSchema, groupOf, kindKey, objectKey, snapshotPart } from "../../../protocol/index.ts";
import { matchesLabelRequirements, parseLabelSelector } from "../../../protocol/kube/selectors.ts";
import { reconcileRequest } from "../../../protocol/snapshot/build.ts";
import type { SnapshotCaches } from "../../../protocol/snapshot/caches.ts";
import { DeliveredFields } from "../../../protocol/snapshot/fields.ts";
import { parentIsNamespaced } from "../../../protocol/snapshot/mapping.ts";
import { applyMergePatch } from "../merge-patch.ts";
import { StoreView } from "./store-view.ts";

/** What applying one decision did. */
export interface Applied {
  readonly applied: Decided[];
  /** Actions the ledger dropped because their claim was taken. */
  readonly dropped: Decided[];
  /** API errors (`409 ...`, `404 ...`), as the relay would report them. */
  readonly errors: string[];
}

type Json = Record<string, unknown>;

/** Built-in kinds that live in no namespace (a cluster-scoped custom resource is named to the constructor). */
const CLUSTER_SCOPED = ["Node", "Namespace", "PersistentVolume", "StorageClass", "PriorityClass", "RuntimeClass", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding"];

/**
 * An in-memory namespace-aware object store with a RecreationLedger, read by the
 * snapshot builder as the relay's caches are ({@link request}).
 */
export class FakeCluster implements SnapshotCaches {
  private readonly objects = new Map<string, KubeObject>();
  private readonly ledger = new Map<string, number>();
  readonly events: EventAction[] = [];
  private counter = 0;
  /** Kinds whose objects have no namespace. */
  private readonly clusterScoped: ReadonlySet<string>;
  /** Controllers' manifest entries, parsed once each. */
  private readonly manifests = new WeakMap<SnapshotController, ControllerManifest>();
  /** The builder's projections of delivered objects, made once per watch. */
  private readonly fields = new DeliveredFields();

  constructor(options: { readonly clusterScoped?: readonly string[] } = {}) {
    this.clusterScoped = new Set([...CLUSTER_SCOPED, ...(options.clusterScoped ?? [])]);
  }

  private static key(kind: string, namespace: string | undefined, name: string): string {
    return `${kind}/${namespace ?? ""}/${name}`;
  }

  /** Stores an object as the API server would on create (uid, generation, resourceVersion). */
  add(input: KubeObject | Json, now = "2026-01-01T00:00:00Z"): KubeObject {
    const object = structuredClone(KubeObjectSchema.parse(input));
    this.counter += 1;
    const namespace = this.namespaceOf(object.kind, object.metadata.namespace);
    if (namespace === undefined) delete object.metadata.namespace;
    else object.metadata.namespace = namespace;
    object.metadata.uid ??= `uid-${this.counter}`;
    object.metadata.generation ??= 1;
    object.metadata.creationTimestamp ??= now;
    object.metadata.resourceVersion = String(this.counter);
    this.objects.set(FakeCluster.key(object.kind, object.metadata.namespace, object.metadata.name ?? ""), object);
    return structuredClone(object);
  }

  /** Stores an object as a cluster holds it (as a test writes it out, or as read from an API server): nothing is added. */
  put(input: KubeObject | Json): KubeObject {
    const object = structuredClone(KubeObjectSchema.parse(input));
    this.objects.set(FakeCluster.key(object.kind, this.namespaceOf(object.kind, object.metadata.namespace), object.metadata.name ?? ""), object);
    return structuredClone(object);
  }

  /** The namespace an object of `kind` is stored in: none for a cluster-scoped kind, `default` when none is given. */
  private namespaceOf(kind: string, namespace: string | undefined): string | undefined {
    return this.clusterScoped.has(kind) ? undefined : (namespace ?? "default");
  }

  /** The object, or undefined. */
  get(kind: string, name: string, namespace?: string): KubeObject | undefined {
    const found = this.objects.get(FakeCluster.key(kind, this.namespaceOf(kind, namespace), name));
    return found ? structuredClone(found) : undefined;
  }

  /** Every object of a kind. */
  list(kind: string): KubeObject[] {
    return [...this.objects.values()].filter((o) => o.kind === kind).map((o) => structuredClone(o));
  }

  /** Replaces an object as a PUT would (spec changes bump generation). */
  update(object: KubeObject): KubeObject {
    const key = FakeCluster.key(object.kind, object.metadata.namespace, object.metadata.name ?? "");
    const before = this.objects.get(key);
    const next = structuredClone(object);
    if (before && JSON.stringify(before["spec"]) !== JSON.stringify(next["spec"])) next.metadata.generation = (before.metadata.generation ?? 1) + 1;
    this.counter += 1;
    next.metadata.resourceVersion = String(this.counter);
    this.objects.set(key, next);
    return structuredClone(next);
  }

  /** Removes an object at once; returns its last state (what a DELETED event carries). */
  remove(kind: string, name: string, namespace?: string): KubeObject {
    const key = FakeCluster.key(kind, this.namespaceOf(kind, namespace), name);
    const found = this.objects.get(key);
    if (!found) throw new Error(`${key} not found`);
    this.objects.delete(key);
    return structuredClone(found);
  }

  /** Starts a graceful deletion: the object stays, with a deletionTimestamp. */
  markDeleting(kind: string, name: string, now: string, namespace?: string): KubeObject {
    const found = this.get(kind, name, namespace);
    if (!found) throw new Error(`${kind} ${name} not found`);
    found.metadata.deletionTimestamp = now;
    return this.update(found);
  }

  /** Applies a decision in order, as the Worker shell (claims) and the relay (API calls) do. */
  apply(decision: Decision, now: string): Applied {
    const applied: Decided[] = [];
    const dropped: Decided[] = [];
    const errors: string[] = [];
    const nowMs = Date.parse(now);
    for (const action of decision.actions) {
      if (action.claim) {
        const until = this.ledger.get(action.claim.key);
        if (until !== undefined && until > nowMs) {
          dropped.push(action);
          continue;
        }
        this.ledger.set(action.claim.key, nowMs + action.claim.ttlSeconds * 1000);
      }
      const error = this.applyOne(action, now);
      if (error) errors.push(error);
      else applied.push(action);
    }
    return { applied, dropped, errors };
  }

  private applyOne(action: Decided, now: string): string | undefined {
    switch (action.type) {
      case "create": {
        const { namespace, name } = action.object.metadata;
        if (this.objects.has(FakeCluster.key(action.object.kind, this.namespaceOf(action.object.kind, namespace), name ?? ""))) return `409 AlreadyExists ${action.object.kind} ${name ?? ""}`;
        this.add(action.object, now);
        return undefined;
      }
      case "patch":
      case "status": {
        const found = this.get(action.target.kind, action.target.name, action.target.namespace);
        if (!found) return `404 NotFound ${action.target.kind} ${action.target.name}`;
        if (action.target.uid && action.target.uid !== found.metadata.uid) return `409 Conflict ${action.target.name}`;
        const next =
          action.type === "patch"
            ? (applyMergePatch(found, action.patch) as KubeObject)
            : { ...found, status: applyMergePatch(found["status"], action.status) };
        this.update(next);
        return undefined;
      }
      case "delete": {
        const found = this.get(action.target.kind, action.target.name, action.target.namespace);
        if (!found) return `404 NotFound ${action.target.kind} ${action.target.name}`;
        if (action.preconditions?.uid && action.preconditions.uid !== found.metadata.uid) return `409 Conflict ${action.target.name}`;
        this.remove(action.target.kind, action.target.name, action.target.namespace);
        return undefined;
      }
      case "event":
        this.events.push(action);
        return undefined;
      case "bind":
        return undefined;
    }
  }

  /**
   * The snapshot the relay would send `controller` for its parent `name` (in `namespace`,
   * default `default`, when its parents are namespaced): built by the relay's own builder
   * (`protocol/snapshot/build.ts`) from this cluster's objects. So children are found as
   * the relay finds them (an `owner` watch by the parent's uid, a label-selected watch
   * sees only what its selector matches), `related` objects are narrowed as the relay
   * narrows them, and every object carries only the fields its watch declares. A deletion
   * trigger's object is cut to its watch's fields too, as the relay queues it; `now` is
   * sent as the relay sends it (`toISOString`).
   */
  request(controller: SnapshotController, options: { readonly name: string; readonly namespace?: string; readonly triggers?: readonly Trigger[]; readonly now: string }): ReconcileRequest {
    const manifest = this.manifestOf(controller);
    const key = parentIsNamespaced(manifest) ? objectKey({ namespace: options.namespace ?? "default", name: options.name }) : options.name;
    const triggers = (options.triggers ?? []).map((trigger) => this.queued(manifest, trigger));
    return structuredClone(reconcileRequest(manifest, key, this, triggers, new Date(options.now), this.fields));
  }

  /** The cluster's objects a watch sees (its kind, its label selector), read as the relay's cache of it serves them. */
  forWatch(watch: Watch): StoreView {
    if (watch.fieldSelector) throw new Error(`the fake cluster does not apply field selectors (watch of ${kindKey(watch)}: ${watch.fieldSelector})`);
    const selector = parseLabelSelector(watch.labelSelector);
    return new StoreView(watch.namespaced, this.ofKind(watch).filter((o) => matchesLabelRequirements(o.metadata.labels, selector)));
  }

  /** Every object of a kind, as the relay's unfiltered cache of it serves them (`related` objects come from it). */
  unfiltered(kind: TypeRef): StoreView {
    return new StoreView(!this.clusterScoped.has(kind.kind), this.ofKind(kind));
  }

  private ofKind(type: TypeRef): KubeObject[] {
    const group = groupOf(type.apiVersion);
    return [...this.objects.values()].filter((o) => o.kind === type.kind && groupOf(o.apiVersion) === group);
  }

  /** A controller's manifest entry, as the Worker serves it to the relay (parsed once: the builder's projections are kept per watch). */
  private manifestOf(controller: SnapshotController): ControllerManifest {
    let manifest = this.manifests.get(controller);
    if (!manifest) {
      manifest = ControllerManifest.parse({ name: controller.name, delivery: controller.delivery, parent: controller.parent, watches: controller.watches, related: controller.related ?? [], permissions: controller.permissions });
      this.manifests.set(controller, manifest);
    }
    return manifest;
  }

  /** A trigger as the relay queues it: a deletion carries its watch's fields of the object's last state. */
  private queued(manifest: ControllerManifest, trigger: Trigger): Trigger {
    const watch = manifest.watches.find((w) => kindKey(w) === trigger.kind && snapshotPart(w.mapping) !== "none");
    return trigger.type === "DELETED" && watch ? { ...trigger, object: this.fields.ofWatch(watch)(trigger.object) } : trigger;
  }
}
