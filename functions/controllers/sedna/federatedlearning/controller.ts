import type { SnapshotController } from "../../../kit/controller.ts";
import { SEDNA_API_VERSION, SEDNA_GROUP } from "../group.ts";
import { datasetResource } from "../dataset.ts";
import { labelPrefix } from "../labels.ts";
import { modelResource } from "../model.ts";
import { reconcileFederatedLearning } from "./reconcile.ts";
import { federatedLearningResource } from "./schema.ts";

const parent = { apiVersion: SEDNA_API_VERSION, kind: "FederatedLearningJob" };

/**
 * What the reconcile reads of a worker pod besides what identifies and owns it: its labels
 * (slot and spec hash), its node and phase, and the reason and conditions a waiting or
 * failed worker is reported with (`status.ts`). A pod's spec is never read back: the
 * spec-hash label says which spec made it.
 */
const POD_FIELDS = ["metadata.labels", "spec.nodeName", "status.phase", "status.reason", "status.conditions"];

/**
 * How long a worker's creation and start gather before the job's status is looked at
 * again: one reconcile, not two. A deletion is not held (its replacement must not wait).
 */
const POD_BATCH_MILLISECONDS = 100;

/** Sedna federated learning: an aggregation pod and Service, one training pod per worker. */
const controller: SnapshotController = {
  name: "federatedlearning",
  delivery: "snapshot",
  parent,
  watches: [
    { ...parent, resource: "federatedlearningjobs", namespaced: true, mapping: { by: "self" } },
    // Only the pods carrying a FederatedLearningJob's labels (every worker it creates,
    // `workerLabels`): the relay does not cache, for this controller, pods it does not own
    // (ADR 0016); and of those, only what the reconcile reads (POD_FIELDS).
    { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "owner", owner: parent }, labelSelector: `${labelPrefix("FederatedLearningJob")}/uid`, fields: POD_FIELDS, batchMilliseconds: POD_BATCH_MILLISECONDS },
    { apiVersion: "v1", kind: "Service", resource: "services", namespaced: true, mapping: { by: "owner", owner: parent } },
    {
      apiVersion: SEDNA_API_VERSION,
      kind: "Model",
      resource: "models",
      namespaced: true,
      mapping: { by: "reference", paths: ["spec.aggregationWorker.model.name", "spec.pretrainedModel.name"] },
    },
    {
      apiVersion: SEDNA_API_VERSION,
      kind: "Dataset",
      resource: "datasets",
      namespaced: true,
      mapping: { by: "reference", paths: ["spec.trainingWorkers[].dataset.name"] },
    },
  ],
  permissions: [
    { group: SEDNA_GROUP, resource: "federatedlearningjobs", access: ["read", "status"] },
    { group: SEDNA_GROUP, resource: "models", access: ["read"] },
    { group: SEDNA_GROUP, resource: "datasets", access: ["read"] },
    // Workers are created and deleted, never patched (a changed template replaces them); the Service is patched in place.
    { group: "", resource: "pods", access: ["read", "create", "delete"] },
    { group: "", resource: "services", access: ["read", "write"] },
  ],
  resources: [federatedLearningResource, modelResource, datasetResource],
  reconcile: reconcileFederatedLearning,
};

export default controller;
