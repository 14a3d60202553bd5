import type { SnapshotController } from "../../kit/controller.ts";
import { aggregatorConfigResource } from "./aggregator-config.ts";
import { NERVEX_API_VERSION, NERVEX_GROUP } from "./group.ts";
import { reconcileNerveXJob } from "./reconcile.ts";
import { replicasApi } from "./replicas/api.ts";
import { nerveXJobResource } from "./schema.ts";
import { CONTROLLER_NAME_LABEL, CONTROLLER_NAME_VALUE } from "./labels.ts";
import { defaultsWebhook, validateWebhook } from "./webhooks.ts";

const parent = { apiVersion: NERVEX_API_VERSION, kind: "NerveXJob" };

/** How long changes of a job's pods and Services are gathered before the job is reconciled (deletions are not held back). */
const BATCH_MS = 500;

/**
 * NerveX (DI-engine's orchestrator): a NerveXJob's coordinator pod and Service, its status
 * and its cleanup; the webhooks defaulting and checking `cleanPodPolicy`; and the
 * replicas API DI-engine's coordinator calls (`replicas/`). AggregatorConfigs and Nodes
 * are only cached, for that API.
 */
const controller: SnapshotController = {
  name: "nervexjob",
  delivery: "snapshot",
  parent,
  watches: [
    { ...parent, resource: "nervexjobs", namespaced: true, mapping: { by: "self" } },
    // A replicas call starts ten pods at once: their changes are one reconcile (and one
    // status write) half a second later, not one each while the call is being applied.
    // Only NerveX pods (every pod it or its replicas API creates carries `controller-name`),
    // kept whole: the reconcile and the replicas API copy them (ADR 0016).
    { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "owner", owner: parent }, batchMilliseconds: BATCH_MS, labelSelector: `${CONTROLLER_NAME_LABEL}=${CONTROLLER_NAME_VALUE}` },
    // The replicas API's `related` pods come from the relay's cache of every pod: of a pod
    // the watch above does not select, the API reads only the labels (its selectors and
    // `sharingLabels` narrowing). It reconciles nothing.
    { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "none" }, fields: ["metadata.labels"] },
    { apiVersion: "v1", kind: "Service", resource: "services", namespaced: true, mapping: { by: "owner", owner: parent }, batchMilliseconds: BATCH_MS },
    // Cached for the replicas API (the aggregator's template, per-node GPU counts); they reconcile nothing.
    { apiVersion: NERVEX_API_VERSION, kind: "AggregatorConfig", resource: "aggregatorconfigs", namespaced: true, mapping: { by: "none" } },
    { apiVersion: "v1", kind: "Node", resource: "nodes", namespaced: false, mapping: { by: "none" } },
  ],
  permissions: [
    { group: NERVEX_GROUP, resource: "nervexjobs", access: ["read", "status"] },
    { group: NERVEX_GROUP, resource: "aggregatorconfigs", access: ["read"] },
    // Created and deleted, never patched (a replica is replaced, not changed).
    { group: "", resource: "pods", access: ["read", "create", "delete"] },
    { group: "", resource: "services", access: ["read", "create", "delete"] },
    { group: "", resource: "nodes", access: ["read"] },
  ],
  resources: [nerveXJobResource, aggregatorConfigResource],
  webhooks: [defaultsWebhook, validateWebhook],
  apis: [replicasApi],
  reconcile: reconcileNerveXJob,
};

export default controller;
