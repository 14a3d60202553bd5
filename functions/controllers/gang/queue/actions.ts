/** The plan actions the gang scheduler returns: binds, Events and status patches on pods, root deletes. */
import type { Action, BindAction, DeleteAction, EventAction, StatusAction } from "../../../../protocol/plan.ts";
import type { PodRecord } from "../core/index.ts";
import type { OwnerRef } from "./store.ts";

/** An Event message's longest length (the plan's limit). */
const MAX_MESSAGE = 1024;

/** A pod as an object reference. */
export function podRef(pod: PodRecord): { apiVersion: string; kind: string; namespace: string; name: string; uid: string } {
  return { apiVersion: "v1", kind: "Pod", namespace: pod.namespace, name: pod.name, uid: pod.uid };
}

/** Binds a pod to a node. */
export function bind(pod: PodRecord, node: string): BindAction {
  return { type: "bind", pod: { namespace: pod.namespace, name: pod.name, uid: pod.uid }, node };
}

/** An Event on a pod; `ifPreviousApplied` when it tells of the action just before it. */
export function podEvent(pod: PodRecord, eventType: "Normal" | "Warning", reason: string, message: string, ifPreviousApplied = false): EventAction {
  const event: EventAction = { type: "event", target: podRef(pod), eventType, reason, message: message.slice(0, MAX_MESSAGE) };
  if (ifPreviousApplied) event.ifPreviousApplied = true;
  return event;
}

/**
 * Sets `PodScheduled` False/Unschedulable. A merge patch replaces the whole
 * `status.conditions` array: a pending pod has only this condition, so it is the only one sent.
 */
export function unschedulable(pod: PodRecord, message: string, now: string): StatusAction {
  return {
    type: "status",
    target: podRef(pod),
    status: { conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message, lastProbeTime: null, lastTransitionTime: now }] },
  };
}

/** Deletes the root owner of `owner` (or of the pod itself when it has none), in the background. */
export function deleteRoot(pod: PodRecord, owner: OwnerRef | undefined): DeleteAction {
  const target = owner === undefined ? podRef(pod) : { apiVersion: owner.apiVersion, kind: owner.kind, namespace: pod.namespace, name: owner.name, ...(owner.uid === undefined ? {} : { uid: owner.uid }) };
  return { type: "delete", target, propagationPolicy: "Background", root: true };
}

/** One delete per distinct owner of the pods (by uid, else kind/name), one per pod without an owner. */
export function deleteRoots(pods: readonly { record: PodRecord; owner: OwnerRef | undefined }[]): Action[] {
  const seen = new Set<string>();
  const actions: Action[] = [];
  for (const { record, owner } of pods) {
    const key = owner === undefined ? `pod:${record.uid}` : owner.uid !== undefined ? `uid:${owner.uid}` : `ref:${owner.apiVersion}/${owner.kind}/${record.namespace}/${owner.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    actions.push(deleteRoot(record, owner));
  }
  return actions;
}
