import type { Decided } from "./controller.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { CLAIM_TTL_SECONDS, createOf, eventOn, outcomeEvent } from "./actions.ts";
import { SPEC_HASH_LABEL } from "./labels.ts";
import { isControlledBy } from "../../protocol/kube/owner.ts";
import { isTerminating } from "./owner.ts";

/** One child with a fixed name (a Deployment, Service or HPA) to converge. */
export interface NamedChild {
  readonly parent: KubeObject;
  /** The desired object, carrying its spec-hash label. */
  readonly desired: KubeObject;
  /** Every observed object of the kind mapped to the parent (ours or not). */
  readonly observed: readonly KubeObject[];
  /** Objects of the kind the triggers report deleted and that were ours. */
  readonly deleted: readonly KubeObject[];
  /** The merge patch that rolls `observed` to `desired` (called only when the hashes differ). */
  readonly patchOf: (observed: KubeObject, desired: KubeObject) => Record<string, unknown>;
}

/** What converging one child decided; `wait` asks to look again soon. */
export interface ChildOutcome {
  readonly actions: Decided[];
  readonly wait: boolean;
  readonly claimed: boolean;
}

/**
 * Converges one fixed-name child: create it when missing (a replacement of a known
 * deletion is claimed on the deleted uid, so one deletion yields one create), patch it in
 * place when its spec-hash differs, and wait while a same-named object is still
 * terminating or belongs to someone else (creating it would only get 409 AlreadyExists).
 */
export function syncNamedChild(child: NamedChild): ChildOutcome {
  const { parent, desired } = child;
  const name = desired.metadata.name ?? "";
  const kind = desired.kind;
  const same = child.observed.filter((o) => o.metadata.name === name);
  const mine = same.find((o) => isControlledBy(o, parent));
  if (mine) {
    if (isTerminating(mine)) return { actions: [], wait: true, claimed: false };
    const want = desired.metadata.labels?.[SPEC_HASH_LABEL];
    if (mine.metadata.labels?.[SPEC_HASH_LABEL] === want) return { actions: [], wait: false, claimed: false };
    const target = { apiVersion: mine.apiVersion, kind, name, ...(mine.metadata.namespace ? { namespace: mine.metadata.namespace } : {}), ...(mine.metadata.uid ? { uid: mine.metadata.uid } : {}) };
    return {
      actions: [
        { type: "patch", target, patch: child.patchOf(mine, desired) },
        eventOn(parent, "Normal", "Updated", `updated ${kind} ${name} to spec ${want ?? ""}`),
      ],
      wait: false,
      claimed: false,
    };
  }
  if (same.length > 0) return { actions: [], wait: true, claimed: false };
  const gone = child.deleted.find((o) => o.metadata.name === name && o.metadata.uid);
  if (!gone) {
    return { actions: [createOf(desired), eventOn(parent, "Normal", "Created", `created ${kind} ${name}`)], wait: false, claimed: false };
  }
  const claim = { key: `${parent.metadata.uid ?? ""}/${kind}/${name}/${gone.metadata.uid ?? ""}`, ttlSeconds: CLAIM_TTL_SECONDS };
  return {
    // Told only once the create is applied: a replacement the API server refused is no recreation.
    actions: [createOf(desired, claim), outcomeEvent(parent, "Recreated", `recreated ${kind} ${name} (deleted ${gone.metadata.uid ?? ""})`, claim)],
    wait: false,
    claimed: true,
  };
}
