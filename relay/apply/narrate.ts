/**
 * The stage after apply: one readable sentence per applied action for the relay's log
 * (`created Pod default/x for FederatedLearningJob default/y`), and one warning per action
 * that failed for good, counted by controller. Phrased from the action, the parent and the
 * plan's own Events reporting the action, never from their text: the relay knows no
 * controller by name.
 */
import type { Action, EventAction, ObjectRef, StatusError } from "../../protocol/index.ts";
import type { Logger } from "../../cli/log.ts";
import type { Metrics } from "../ops/metrics.ts";
import type { Applied, ApplyListener, ApplyTarget } from "./listener.ts";

/** The Event reason with which the kit announces that a create replaces a deleted child. */
const RECREATED_REASON = "Recreated";

/** `Kind namespace/name`, or `Kind name` for a cluster-scoped object. */
export function objectText(kind: string, namespace: string | undefined, name: string): string {
  return `${kind} ${namespace ? `${namespace}/` : ""}${name}`;
}

/** Whether the Events reporting an action (those right after it in its plan) say it replaces a deleted object. */
export function isRecreation(reports: readonly EventAction[]): boolean {
  return reports.some((event) => event.reason === RECREATED_REASON);
}

/** Says what the applier did: `info` per action applied, `warn` (and `edgeloop_apply_errors_total`) per action failed for good. */
export class Narrator implements ApplyListener {
  readonly #log: Logger;
  readonly #metrics: Metrics;

  constructor(log: Logger, metrics: Metrics) {
    this.#log = log;
    this.#metrics = metrics;
  }

  applied({ action, answer, reports, target }: Applied): void {
    const name = action.type === "create" ? (answer?.metadata?.name ?? action.object.metadata.name) : undefined;
    this.#log("info", narrate(action, target.parent, { ...(name ? { name } : {}), recreated: action.type === "create" && isRecreation(reports) }));
  }

  failed(action: Action, error: StatusError, target: ApplyTarget): void {
    this.#metrics.inc("edgeloop_apply_errors_total", { controller: target.controller ?? "", action: action.type });
    this.#log("warn", "action failed for good", { controller: target.controller, key: target.key, action: action.type, error: error.message });
  }
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
