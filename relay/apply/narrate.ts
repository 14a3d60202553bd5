/**
 * One readable sentence per applied action, for the relay's log: `created Pod default/x
 * for FederatedLearningJob default/y`. Phrased from the action and the parent alone: the
 * relay knows no controller by name.
 */
import type { Action, ObjectRef, Plan } from "../../protocol/index.ts";

/** The Event reason with which the kit announces that a create replaces a deleted child. */
const RECREATED_REASON = "Recreated";

/** `Kind namespace/name`, or `Kind name` for a cluster-scoped object. */
export function objectText(kind: string, namespace: string | undefined, name: string): string {
  return `${kind} ${namespace ? `${namespace}/` : ""}${name}`;
}

/**
 * The names of the objects a plan creates as replacements: those named in the plan's
 * own `Recreated` Event (the plan says so; the relay does not guess).
 */
export function recreatedNames(plan: Plan): ReadonlySet<string> {
  const messages = plan.actions.filter((a) => a.type === "event" && a.reason === RECREATED_REASON).map((a) => (a.type === "event" ? a.message : ""));
  const names = new Set<string>();
  if (messages.length === 0) return names;
  for (const action of plan.actions) {
    const name = action.type === "create" ? action.object.metadata.name : undefined;
    if (name && messages.some((m) => mentions(m, name))) names.add(name);
  }
  return names;
}

/** Whether `text` names `name` as a whole word (`train-0` is not in `train-01`). */
function mentions(text: string, name: string): boolean {
  let at = text.indexOf(name);
  while (at >= 0) {
    const before = text[at - 1];
    const after = text[at + name.length];
    if (!isNameChar(before) && !isNameChar(after)) return true;
    at = text.indexOf(name, at + 1);
  }
  return false;
}

function isNameChar(char: string | undefined): boolean {
  return char !== undefined && /[a-z0-9-]/i.test(char);
}

/** What the applied action did, e.g. `recreated Pod default/x for FederatedLearningJob default/y`. */
export function narrate(action: Action, parent: ObjectRef | undefined, details: { readonly name?: string; readonly recreated?: boolean } = {}): string {
  switch (action.type) {
    case "create": {
      const meta = action.object.metadata;
      const name = details.name ?? meta.name ?? `${meta.generateName ?? ""}*`;
      return `${details.recreated ? "recreated" : "created"} ${objectText(action.object.kind, meta.namespace, name)}${forParent(parent, action.object.kind, meta.namespace, name)}`;
    }
    case "patch":
      return `patched ${ref(action.target)}${forParent(parent, action.target.kind, action.target.namespace, action.target.name)}`;
    case "status":
      return `updated the status of ${ref(action.target)}${forParent(parent, action.target.kind, action.target.namespace, action.target.name)}`;
    case "delete":
      return `deleted ${ref(action.target)}${forParent(parent, action.target.kind, action.target.namespace, action.target.name)}`;
    case "bind":
      return `bound ${objectText("Pod", action.pod.namespace, action.pod.name)} to Node ${action.node}`;
    case "event":
      return `recorded ${action.eventType} Event ${action.reason} on ${ref(action.target)}: ${action.message}`;
  }
}

function ref(target: ObjectRef): string {
  return objectText(target.kind, target.namespace, target.name);
}

/** ` for Kind ns/name`, unless the action is on the parent itself or there is none. */
function forParent(parent: ObjectRef | undefined, kind: string, namespace: string | undefined, name: string): string {
  if (!parent || (parent.kind === kind && parent.name === name && (parent.namespace ?? "") === (namespace ?? ""))) return "";
  return ` for ${ref(parent)}`;
}
