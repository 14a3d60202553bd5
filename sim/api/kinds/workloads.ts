/** apps/v1 Deployment and ReplicaSet: their defaults (pod template included) and replicated spec validated. */
import type { KubeObject } from "../../../protocol/index.ts";
import { defaultDeployment, defaultReplicaSet, withDefaultTemplate } from "../../pipeline/defaults.ts";
import { validateReplicatedSpec } from "../../pipeline/validation.ts";
import { asObj, type Obj } from "../objects.ts";
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
