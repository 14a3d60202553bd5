/**
 * SetDefaults for apps/v1 DaemonSet and StatefulSet and core/v1 ReplicationController
 * (pkg/apis/apps/v1/defaults.go, pkg/apis/core/v1/defaults.go): the spec fields
 * kube-apiserver fills in, and the pod template's defaults. Pure; each returns a new object.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { defaultTemplate } from "./defaults.ts";

type Obj = Record<string, unknown>;

function obj(value: unknown): Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : {};
}

const specOf = (object: KubeObject): Obj => obj((object as KubeObject & Obj).spec);

/** A DaemonSet's spec: RollingUpdate with maxUnavailable 1 and maxSurge 0, ten revisions kept. */
export function defaultDaemonSetSpec(object: KubeObject): KubeObject {
  const spec = specOf(object);
  const strategy: Obj = { type: "RollingUpdate", ...obj(spec.updateStrategy) };
  const updateStrategy = strategy.type === "RollingUpdate" ? { ...strategy, rollingUpdate: { maxUnavailable: 1, maxSurge: 0, ...obj(strategy.rollingUpdate) } } : strategy;
  return { ...object, spec: { revisionHistoryLimit: 10, ...spec, updateStrategy, template: defaultTemplate(spec.template) } } as KubeObject;
}

/** A StatefulSet's spec: one replica, OrderedReady, RollingUpdate from partition 0, claims retained, ten revisions kept. */
export function defaultStatefulSetSpec(object: KubeObject): KubeObject {
  const spec = specOf(object);
  const strategy: Obj = { type: "RollingUpdate", ...obj(spec.updateStrategy) };
  const updateStrategy = strategy.type === "RollingUpdate" ? { ...strategy, rollingUpdate: { partition: 0, ...obj(strategy.rollingUpdate) } } : strategy;
  return {
    ...object,
    spec: {
      replicas: 1,
      podManagementPolicy: "OrderedReady",
      revisionHistoryLimit: 10,
      ...spec,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain", ...obj(spec.persistentVolumeClaimRetentionPolicy) },
      updateStrategy,
      template: defaultTemplate(spec.template),
    },
  } as KubeObject;
}

/** A ReplicationController's spec: one replica; an absent selector, and absent labels, are the template's labels. */
export function defaultReplicationControllerSpec(object: KubeObject): KubeObject {
  const spec = specOf(object);
  const template = spec.template === undefined ? undefined : defaultTemplate(spec.template);
  const templateLabels = obj(obj(template?.metadata).labels);
  const selector = Object.keys(obj(spec.selector)).length > 0 ? spec.selector : templateLabels;
  const labels = Object.keys(object.metadata.labels ?? {}).length > 0 ? object.metadata.labels : templateLabels;
  return { ...object, metadata: { ...object.metadata, ...(Object.keys(obj(labels)).length > 0 ? { labels } : {}) }, spec: { replicas: 1, ...spec, selector, ...(template ? { template } : {}) } } as KubeObject;
}
