/** Building triggers and reading decisions in controller tests. */
import type { Decided, Decision } from "../controller.ts";
import type { KubeObject, Trigger } from "../../../protocol/index.ts";
import { kindKey } from "../../../protocol/index.ts";

/** A DELETED trigger for an object's last state. */
export function deletedTrigger(object: KubeObject): Trigger {
  return { type: "DELETED", kind: kindKey(object), object };
}

/** A MODIFIED trigger. */
export function modifiedTrigger(object: KubeObject): Trigger {
  return { type: "MODIFIED", kind: kindKey(object), object };
}

/** The actions of a decision of one type (claims kept). */
export function actionsOf<T extends Decided["type"]>(decision: Decision, type: T): Extract<Decided, { type: T }>[] {
  return decision.actions.filter((a): a is Extract<Decided, { type: T }> => a.type === type);
}
