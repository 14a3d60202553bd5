/** apps/v1 Deployment, ReplicaSet, DaemonSet, StatefulSet and core/v1 ReplicationController: their defaults (pod template included) and replicated spec validated. */
import type { KubeObject } from "../../../protocol/index.ts";
import { defaultDeployment, defaultReplicaSet, defaultTemplate, withDefaultTemplate, withoutStatus } from "../../pipeline/defaults.ts";
import { validatePodTemplate, validateReplicatedSpec } from "../../pipeline/validation.ts";
import { defaultDaemonSetSpec, defaultReplicationControllerSpec, defaultStatefulSetSpec } from "../../pipeline/workload-defaults.ts";
import { asObj, stableJson, type Obj } from "../objects.ts";
import { builtinKind, type BuiltinKind } from "./kind.ts";

const replicatedSpec = (object: KubeObject): ReturnType<typeof validateReplicatedSpec> => validateReplicatedSpec(asObj((object as KubeObject & Obj).spec));

/** Deployments. */
export const DEPLOYMENT: BuiltinKind = builtinKind(
  { group: "apps", version: "v1", kind: "Deployment", plural: "deployments", namespaced: true, shortNames: ["deploy"], categories: ["all"], status: true, generation: true, extra: ["scale"] },
  { defaultCreate: defaultDeployment, defaultUpdate: withDefaultTemplate, validate: replicatedSpec },
);

/** ReplicaSets. */
export const REPLICA_SET: BuiltinKind = builtinKind(
  { group: "apps", version: "v1", kind: "ReplicaSet", plural: "replicasets", namespaced: true, shortNames: ["rs"], categories: ["all"], status: true, generation: true, extra: ["scale"] },
  { defaultCreate: defaultReplicaSet, defaultUpdate: withDefaultTemplate, validate: replicatedSpec },
);

/** The spec defaults on create, with no status yet (the status subresource's). */
const created = (defaults: (object: KubeObject) => KubeObject) => (object: KubeObject): KubeObject => withoutStatus(defaults(object));

/** A DaemonSet's spec.templateGeneration as apps/v1 shows it: 1 on create, one more on each template change (the daemonset strategy). */
const TEMPLATE_GENERATION = "deprecated.daemonset.template.generation";

function withTemplateGeneration(object: KubeObject, generation: number): KubeObject {
  return { ...object, metadata: { ...object.metadata, annotations: { ...object.metadata.annotations, [TEMPLATE_GENERATION]: String(generation) } } };
}

function keepTemplateGeneration(draft: KubeObject, current: KubeObject): KubeObject {
  const before = Number(current.metadata.annotations?.[TEMPLATE_GENERATION] ?? 1) || 1;
  const template = (o: KubeObject): string => stableJson(defaultTemplate(asObj((o as KubeObject & Obj).spec).template));
  return withTemplateGeneration(draft, template(draft) === template(current) ? before : before + 1);
}

/** DaemonSets: a pod per matching node (sim/controllers/daemonset.ts). */
export const DAEMON_SET: BuiltinKind = builtinKind(
  { group: "apps", version: "v1", kind: "DaemonSet", plural: "daemonsets", namespaced: true, shortNames: ["ds"], categories: ["all"], status: true, generation: true },
  { defaultCreate: (ds) => withTemplateGeneration(withoutStatus(defaultDaemonSetSpec(ds)), 1), keepOnUpdate: keepTemplateGeneration, defaultUpdate: defaultDaemonSetSpec, validate: replicatedSpec },
);

/** StatefulSets: ordered pods with stable names (sim/controllers/statefulset.ts). */
export const STATEFUL_SET: BuiltinKind = builtinKind(
  { group: "apps", version: "v1", kind: "StatefulSet", plural: "statefulsets", namespaced: true, shortNames: ["sts"], categories: ["all"], status: true, generation: true, extra: ["scale"] },
  { defaultCreate: created(defaultStatefulSetSpec), defaultUpdate: defaultStatefulSetSpec, validate: replicatedSpec },
);

/** core/v1 ReplicationControllers: a ReplicaSet with an equality selector (sim/controllers/replicaset.ts runs both). */
export const REPLICATION_CONTROLLER: BuiltinKind = builtinKind(
  { group: "", version: "v1", kind: "ReplicationController", plural: "replicationcontrollers", namespaced: true, shortNames: ["rc"], categories: ["all"], status: true, generation: true, extra: ["scale"] },
  { defaultCreate: created(defaultReplicationControllerSpec), defaultUpdate: defaultReplicationControllerSpec, validate: (rc) => validatePodTemplate(asObj((rc as KubeObject & Obj).spec).template, "spec.template") },
);
