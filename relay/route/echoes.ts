/**
 * The echo filter of the route stage: the status writes this relay's reconcile plans
 * made, so that their watch echoes wake nobody (ADR 0018). The applier tells it of each
 * write as an {@link ApplyListener} (the engine hands it in; the apply stage knows no
 * router); the router asks it about each MODIFIED event of a parent. A reconcile writes its parent's status from the snapshot it was
 * given; the MODIFIED event that write causes carries nothing the controller did not
 * decide itself, yet it made every self-heal cost one reconcile more (a snapshot
 * built, signed, sent, verified, reconciled to an empty plan). The echo is recognised by
 * two facts together: the change since the cached state is confined to `status` (and the
 * resourceVersion and managedFields every write moves), and this relay wrote that object's
 * status — the write's answer named the event's resourceVersion, or the write is still in
 * flight (the API server's watch event may reach the relay before its answer does).
 */
import { isDeepStrictEqual } from "node:util";
import type { Action, KubeObject, ObjectRef } from "../../protocol/index.ts";
import type { ApplyListener, ApplyTarget } from "../apply/listener.ts";

/** How many answered writes are remembered (the oldest are forgotten first). */
const DEFAULT_LIMIT = 10_000;

/** The metadata every write moves: a change of these alone is no change. */
const MOVED_BY_ANY_WRITE = new Set(["resourceVersion", "managedFields"]);

/** Status writes of reconcile plans (a target with a queue key) in flight and answered, by object. */
export class OwnStatusWrites implements ApplyListener {
  readonly #inFlight = new Map<string, number>();
  /** Object identity → the resourceVersion our write's answer carried (insertion order = age). */
  readonly #answered = new Map<string, string>();
  readonly #limit: number;

  constructor(limit = DEFAULT_LIMIT) {
    this.#limit = limit;
  }

  /** A status write of a reconcile's plan is being sent. */
  sending(action: Action, target: ApplyTarget): void {
    if (action.type !== "status" || target.key === undefined) return;
    const id = identityOf(action.target);
    this.#inFlight.set(id, (this.#inFlight.get(id) ?? 0) + 1);
  }

  /** Its answer (none when it failed): the resourceVersion its echo will carry. */
  settled(action: Action, answer: KubeObject | undefined, target: ApplyTarget): void {
    if (action.type !== "status" || target.key === undefined) return;
    const id = identityOf(action.target);
    const left = (this.#inFlight.get(id) ?? 1) - 1;
    if (left > 0) this.#inFlight.set(id, left);
    else this.#inFlight.delete(id);
    const resourceVersion = answer?.metadata?.resourceVersion;
    if (resourceVersion !== undefined) this.#remember(id, resourceVersion);
  }

  /**
   * Whether the change from `previous` to `object` is the echo of one of our status
   * writes. A record is not used up: no later event carries its resourceVersion again.
   */
  isEcho(object: KubeObject, previous: KubeObject | undefined): boolean {
    if (!previous || previous.metadata.uid !== object.metadata.uid) return false;
    const id = identityOf({ apiVersion: object.apiVersion, kind: object.kind, namespace: object.metadata.namespace, name: object.metadata.name ?? "" });
    const answered = this.#answered.get(id);
    const ours = (answered !== undefined && answered === object.metadata.resourceVersion) || this.#inFlight.has(id);
    return ours && onlyStatusChanged(previous, object);
  }

  #remember(id: string, resourceVersion: string): void {
    this.#answered.delete(id);
    this.#answered.set(id, resourceVersion);
    if (this.#answered.size > this.#limit) {
      const oldest = this.#answered.keys().next().value;
      if (oldest !== undefined) this.#answered.delete(oldest);
    }
  }
}

function identityOf(ref: Pick<ObjectRef, "apiVersion" | "kind" | "namespace" | "name">): string {
  return `${ref.apiVersion}\u0000${ref.kind}\u0000${ref.namespace ?? ""}\u0000${ref.name}`;
}

/** Whether `after` differs from `before` only in `status`, `metadata.resourceVersion` and `metadata.managedFields`. */
export function onlyStatusChanged(before: KubeObject, after: KubeObject): boolean {
  const b = before as unknown as Record<string, unknown>;
  const a = after as unknown as Record<string, unknown>;
  for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (key === "status" || key === "metadata") continue;
    if (!isDeepStrictEqual(b[key], a[key])) return false;
  }
  const bm = before.metadata as Record<string, unknown>;
  const am = after.metadata as Record<string, unknown>;
  for (const key of new Set([...Object.keys(bm), ...Object.keys(am)])) {
    if (MOVED_BY_ANY_WRITE.has(key)) continue;
    if (!isDeepStrictEqual(bm[key], am[key])) return false;
  }
  return true;
}
