/**
 * Writes back the status of the PodGroup objects that declare groups (ADR 0026,
 * `core/podgroup-status.ts`): a status action per object whose status should change, the
 * status sent remembered so that a pass before the watch shows it does not send it again
 * nor step back from it.
 */
import type { Action, StatusAction } from "../../../../protocol/plan.ts";
import { DECLARING_API_VERSIONS, type DeclaringApi, type PodRecord } from "../core/index.ts";
import { coschedulingStatus, nativeConditions, readCoschedulingStatus, sameCoschedulingStatus } from "../core/podgroup-status.ts";
import type { GangStore, StoredDeclaredGroup, StoredPod } from "./store.ts";

/** A status action on a PodGroup object. */
function statusOf(api: DeclaringApi, stored: StoredDeclaredGroup, status: Record<string, unknown>): StatusAction {
  const { namespace, name } = stored.record;
  return { type: "status", target: { apiVersion: DECLARING_API_VERSIONS[api], kind: "PodGroup", namespace, name, ...(stored.uid === "" ? {} : { uid: stored.uid }) }, status };
}

/** `namespace/owner` of the group's first pod by name, as the podgroup controller's `occupiedBy` (its controller owner here). */
function occupiedBy(pods: readonly StoredPod[]): string {
  const first = [...pods].sort((a, b) => (a.record.name < b.record.name ? -1 : a.record.name > b.record.name ? 1 : 0))[0];
  return first?.owner === undefined ? "" : `${first.record.namespace}/${first.owner.name}`;
}

/**
 * The scheduler-plugins PodGroups' statuses, from the pods stored now (run before a pass
 * forgets the finished pods of a finished group): of the PodGroups our pods name, from the
 * first such pod seen on.
 */
export function coschedulingStatusActions(store: GangStore): Action[] {
  const actions: Action[] = [];
  for (const stored of store.declaredGroups()) {
    if (stored.record.api !== "scheduler-plugins") continue;
    const observed = readCoschedulingStatus(stored.status);
    const sent = stored.sent === undefined ? undefined : readCoschedulingStatus(stored.sent);
    const members = store.podsOf(stored.record.key).filter((pod) => pod.record.group.declaredBy === "scheduler-plugins");
    // A PodGroup none of our pods has named is another scheduler's (coscheduling beside us): its controller writes it.
    if (members.length === 0 && stored.sent === undefined) continue;
    const wanted = coschedulingStatus(sent ?? observed, stored.record.size, members.map((pod): PodRecord => pod.record), occupiedBy(members));
    if (sameCoschedulingStatus(wanted, observed) || (sent !== undefined && sameCoschedulingStatus(wanted, sent))) continue;
    store.setDeclaredSent("scheduler-plugins", stored.record.key, wanted);
    actions.push(statusOf("scheduler-plugins", stored, { ...wanted }));
  }
  return actions;
}

/**
 * The native PodGroups' `PodGroupScheduled` condition, after a pass: True once the group
 * has an allocation, False (Unschedulable, with the reason reported on its pods) once it
 * was rejected; nothing while it waits.
 */
export function nativeStatusActions(store: GangStore, now: string): Action[] {
  const actions: Action[] = [];
  for (const stored of store.declaredGroups()) {
    if (stored.record.api !== "native") continue;
    const key = stored.record.key;
    const reported = store.group(key)?.reported ?? null;
    const outcome = store.allocation(key) !== undefined ? { scheduled: true as const } : reported !== null ? { scheduled: false as const, message: reported } : undefined;
    if (outcome === undefined) continue;
    const conditions = nativeConditions(stored.sent ?? stored.status, outcome, stored.generation, now);
    if (conditions === undefined || nativeConditions(stored.status, outcome, stored.generation, now) === undefined) continue;
    store.setDeclaredSent("native", key, { conditions });
    actions.push(statusOf("native", stored, { conditions }));
  }
  return actions;
}
