import type { SnapshotController } from "../../kit/controller.ts";
import relayWebhooks from "./relay-webhooks.ts";
import { reconcileNode } from "./reconcile.ts";
import { nodesAndPools } from "./related.ts";

const NODE = { apiVersion: "v1", kind: "Node" };

/**
 * What the reconcile and the endpoint webhooks (their `related` pods) read of a pod: its
 * node, tolerations and the annotations keeping the originals (`tolerations.ts`), the mirror
 * annotation, its phase (`reconcile.ts` isFinished) and its containers' waiting reasons
 * (`keep-ready.ts` crashLooping). The relay caches every pod, and only this of each (ADR 0016).
 */
const POD_FIELDS = [
  "metadata.annotations",
  "spec.nodeName",
  "spec.tolerations",
  "status.phase",
  "status.containerStatuses[].state.waiting.reason",
  "status.initContainerStatuses[].state.waiting.reason",
];

/**
 * What the reconcile reads of a node and its pool's (`node-autonomy.ts`, `pools.ts`,
 * `reconcile.ts`): its edge and pool labels, its autonomy annotations and markers, and its
 * conditions' type, status, transition and message (Ready, the edge hub's `Autonomy`). Not
 * their heartbeat times: a status update that moves only those wakes no reconcile (the sim
 * heartbeats every node each 10 s: at 5,000 nodes, 500 Worker calls a second).
 */
const NODE_FIELDS = [
  "metadata.labels",
  "metadata.annotations",
  "status.conditions[].type",
  "status.conditions[].status",
  "status.conditions[].reason",
  "status.conditions[].message",
  "status.conditions[].lastTransitionTime",
];

/**
 * OpenYurt edge autonomy (ADR 0013): keyed by Node, with the pods bound to it as
 * children and its pool's nodes as related objects, it keeps the not-ready/unreachable
 * tolerations of an autonomous edge node's pods at `node.openyurt.io/autonomy-duration`
 * (forever while the node's whole pool is down), restores them when the annotation goes,
 * and reports bad durations, cache failures and pool outages as Events. Its webhooks do
 * the same for pods created bound, keep endpoints ready during autonomy, and guard the
 * annotation.
 */
const controller: SnapshotController = {
  name: "autonomy",
  delivery: "snapshot",
  parent: NODE,
  watches: [
    { ...NODE, resource: "nodes", namespaced: false, mapping: { by: "self" }, fields: NODE_FIELDS },
    // A node's pods change in bursts (a Deployment rolled out, 500 pods bound): their
    // changes are one reconcile of the node half a second later, not one each. Deletions
    // too: a pod that is gone needs nothing of this controller (at 50 self-heals a second
    // each deletion was a snapshot of its node's every pod).
    { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "field", path: "spec.nodeName" }, batchMilliseconds: 500, batchDeletions: true, fields: POD_FIELDS },
  ],
  related: nodesAndPools(["object.metadata.name"]),
  permissions: [
    // Patches only: pods' tolerationSeconds and the kept originals; nodes' pool-outage and cache-failed marks. It never creates or deletes either.
    { group: "", resource: "pods", access: ["read", "patch"] },
    { group: "", resource: "nodes", access: ["read", "patch"] },
  ],
  // All four are decided at the relay (./relay-webhooks.ts); the Worker serves them too, for a relay built without them.
  webhooks: [...relayWebhooks],
  reconcile: reconcileNode,
};

export default controller;
