/**
 * How a plan's actions are grouped for applying (pure): each action with the Events that
 * report it, and runs of units applied at once.
 */
import type { Action } from "../../protocol/index.ts";

/**
 * A plan's actions in units: each action that is not an Event, with the Events after it
 * (those marked `ifPreviousApplied` report it); Events at the front are units of their own.
 */
export function unitsOf(actions: readonly Action[]): Action[][] {
  const units: Action[][] = [];
  for (const action of actions) {
    const last = units.at(-1);
    if (action.type === "event" && last !== undefined) last.push(action);
    else units.push([action]);
  }
  return units;
}

/** The run of units from `start` applied at once: up to `concurrency` consecutive units led by the same action type (a unit led by an Event runs alone). */
export function runOf(units: readonly (readonly Action[])[], start: number, concurrency: number): (readonly Action[])[] {
  const type = units[start]?.[0]?.type;
  if (type === undefined) return [];
  let end = start + 1;
  if (type !== "event") while (end < units.length && end - start < concurrency && units[end]?.[0]?.type === type) end += 1;
  return units.slice(start, end);
}

/** One line naming what an action does, for logs and Warning Events (`create Pod x`, `bind pod x to n1`). */
export function describe(action: Action): string {
  switch (action.type) {
    case "create":
      return `create ${action.object.kind} ${action.object.metadata.name ?? `${action.object.metadata.generateName ?? ""}*`}`;
    case "bind":
      return `bind pod ${action.pod.name} to ${action.node}`;
    case "event":
    case "patch":
    case "delete":
    case "status":
      return `${action.type} ${action.target.kind} ${action.target.name}`;
  }
}
