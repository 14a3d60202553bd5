/**
 * A fake cluster for controller unit tests: a tiny in-memory object store that applies
 * decisions the way the relay and the Worker shell do (409 on a taken name, uid
 * preconditions, merge patches, RecreationLedger claims), so unit tests assert the
 * cluster state that results rather than the mere shape of a plan. Test support only:
 * nothing the Worker bundles may import `kit/testing` (lint enforces it).
 */
import type { Decided, Decision } from "../controller.ts";
import type { EventAction, KubeObject, ReconcileRequest, Trigger } from "../../../protocol/index.ts";
import { KubeObject as KubeObjectSchema, kindKey } from "../../../protocol/index.ts";
import { applyMergePatch } from "../merge-patch.ts";

/** What applying one decision did. */
export interface Applied {
  readonly applied: Decided[];
  /** Actions the ledger dropped because their claim was taken. */
  readonly dropped: Decided[];
  /** API errors (`409 ...`, `404 ...`), as the relay would report them. */
  readonly errors: string[];
}

type Json = Record<string, unknown>;

/** An in-memory namespace-aware object store with a RecreationLedger. */
export class FakeCluster {
  private readonly objects = new Map<string, KubeObject>();
  private readonly ledger = new Map<string, number>();
  readonly events: EventAction[] = [];
  private counter = 0;

  private static key(kind: string, namespace: string | undefined, name: string): string {
    return `${kind}/${namespace ?? ""}/${name}`;
  }

  /** Stores an object as the API server would on create (uid, generation, resourceVersion). */
  add(input: KubeObject | Json, now = "2026-01-01T00:00:00Z"): KubeObject {
    const object = structuredClone(KubeObjectSchema.parse(input));
    this.counter += 1;
    object.metadata.namespace ??= "default";
    object.metadata.uid ??= `uid-${this.counter}`;
    object.metadata.generation ??= 1;
    object.metadata.creationTimestamp ??= now;
    object.metadata.resourceVersion = String(this.counter);
    this.objects.set(FakeCluster.key(object.kind, object.metadata.namespace, object.metadata.name ?? ""), object);
    return structuredClone(object);
  }

  /** The object, or undefined. */
  get(kind: string, name: string, namespace = "default"): KubeObject | undefined {
    const found = this.objects.get(FakeCluster.key(kind, namespace, name));
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
  remove(kind: string, name: string, namespace = "default"): KubeObject {
    const key = FakeCluster.key(kind, namespace, name);
    const found = this.objects.get(key);
    if (!found) throw new Error(`${key} not found`);
    this.objects.delete(key);
    return structuredClone(found);
  }

  /** Starts a graceful deletion: the object stays, with a deletionTimestamp. */
  markDeleting(kind: string, name: string, now: string, namespace = "default"): KubeObject {
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
        if (this.objects.has(FakeCluster.key(action.object.kind, namespace ?? "default", name ?? ""))) return `409 AlreadyExists ${action.object.kind} ${name ?? ""}`;
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
   * The snapshot the relay would send for a parent: children are the objects whose
   * controller ownerReference names the parent's kind and *name* (as the relay maps them;
   * the reconcile must check the uid itself), related are the given kinds' objects.
   */
  request(options: {
    readonly controller: string;
    readonly parentKind: string;
    readonly name: string;
    readonly namespace?: string;
    readonly children: readonly { readonly apiVersion: string; readonly kind: string }[];
    readonly related?: readonly { readonly apiVersion: string; readonly kind: string }[];
    readonly triggers?: readonly Trigger[];
    readonly now: string;
  }): ReconcileRequest {
    const namespace = options.namespace ?? "default";
    const parent = this.get(options.parentKind, options.name, namespace) ?? null;
    const all = [...this.objects.values()].map((o) => structuredClone(o));
    const children: Record<string, KubeObject[]> = {};
    for (const type of options.children) {
      children[kindKey(type)] = all.filter(
        (o) =>
          o.kind === type.kind &&
          o.metadata.namespace === namespace &&
          (o.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.kind === options.parentKind && r.name === options.name),
      );
    }
    const related: Record<string, KubeObject[]> = {};
    for (const type of options.related ?? []) related[kindKey(type)] = all.filter((o) => o.kind === type.kind && o.metadata.namespace === namespace);
    return {
      controller: options.controller,
      key: `${namespace}/${options.name}`,
      parent,
      children,
      related,
      triggers: [...(options.triggers ?? [])],
      now: options.now,
    };
  }
}

