import type { SnapshotController } from "../../../kit/controller.ts";
import { SEDNA_API_VERSION, SEDNA_GROUP } from "../group.ts";
import { modelResource } from "../model.ts";
import { reconcileJointInference } from "./reconcile.ts";
import { jointInferenceResource } from "./schema.ts";

const parent = { apiVersion: SEDNA_API_VERSION, kind: "JointInferenceService" };

/** Sedna joint inference: a cloud and an edge Deployment, the cloud Service, optional HPAs. */
const controller: SnapshotController = {
  name: "jointinference",
  delivery: "snapshot",
  parent,
  watches: [
    { ...parent, resource: "jointinferenceservices", namespaced: true, mapping: { by: "self" } },
    // A worker's Deployment reports a replaced pod in two or three status writes within a few
    // hundred milliseconds: one reconcile of the service after them, not one each. A
    // deleted Deployment is not held (its replacement must not wait).
    { apiVersion: "apps/v1", kind: "Deployment", resource: "deployments", namespaced: true, mapping: { by: "owner", owner: parent }, batchMilliseconds: 250 },
    { apiVersion: "v1", kind: "Service", resource: "services", namespaced: true, mapping: { by: "owner", owner: parent } },
    {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      resource: "horizontalpodautoscalers",
      namespaced: true,
      mapping: { by: "owner", owner: parent },
    },
    {
      apiVersion: SEDNA_API_VERSION,
      kind: "Model",
      resource: "models",
      namespaced: true,
      mapping: { by: "reference", paths: ["spec.edgeWorker.model.name", "spec.cloudWorker.model.name"] },
    },
  ],
  permissions: [
    { group: SEDNA_GROUP, resource: "jointinferenceservices", access: ["read", "status"] },
    { group: SEDNA_GROUP, resource: "models", access: ["read"] },
    { group: "apps", resource: "deployments", access: ["read", "write"] },
    { group: "", resource: "services", access: ["read", "write"] },
    { group: "autoscaling", resource: "horizontalpodautoscalers", access: ["read", "write"] },
  ],
  resources: [jointInferenceResource, modelResource],
  reconcile: reconcileJointInference,
};

export default controller;
