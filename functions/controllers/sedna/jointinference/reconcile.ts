import type { Decided, Decision } from "../../../kit/controller.ts";
import type { KubeObject, ReconcileRequest } from "../../../../protocol/index.ts";
import { errorFromZod } from "../../../../protocol/index.ts";
import { CLAIM_TTL_SECONDS, deleteOf, eventOn, statusIfChanged, statusOf } from "../../../kit/actions.ts";
import { syncNamedChild, type ChildOutcome } from "../../../kit/children.ts";
import { Condition, setExclusive, uniqueByType, type ConditionUpdate } from "../../../kit/conditions.ts";
import { createMergePatch } from "../../../kit/merge-patch.ts";
import { deletedChildren, isTerminating, ownedChildren } from "../../../kit/owner.ts";
import { describeMissing, isMissing, modelSpec, type MissingReference } from "../referenced.ts";
import type { StorageSource } from "../storage.ts";
import { desiredChildren, deploymentName, type DesiredChildren, type WorkerType } from "./desired.ts";
import { availableReplicas, failedReplicas, workerHealth } from "./health.ts";
import { JI_CONDITION_TYPES, JointInferenceSpec } from "./schema.ts";

/** The kinds a JointInferenceService owns, by `Kind.apiVersion` key. */
export const DEPLOYMENT_KEY = "Deployment.apps/v1";
export const SERVICE_KEY = "Service.v1";
export const HPA_KEY = "HorizontalPodAutoscaler.autoscaling/v2";

const WORKERS: readonly WorkerType[] = ["edge", "cloud"];
const WAIT_SECONDS = 2;

/**
 * Reconciles one JointInferenceService: the cloud and edge Deployments, the `<ji>-cloud`
 * Service and the HPAs converge to the spec (created when missing, patched in place when
 * their spec-hash differs), then the status follows what the Deployments report.
 * A parent being deleted is left to the garbage collector.
 */
export function reconcileJointInference(request: ReconcileRequest): Decision {
  const parent = request.parent;
  if (!parent || !parent.metadata.uid || isTerminating(parent)) return { actions: [] };
  const parsed = JointInferenceSpec.safeParse(parent["spec"]);
  if (!parsed.success) {
    const error = errorFromZod(parsed.error, "spec").error;
    return { actions: withStatus(request, parent, { type: "Failed", status: "True", reason: "InvalidSpec", message: `${error.path}: ${error.message}` }, 0, 0) };
  }
  const spec = parsed.data;
  const edgeModel = modelSpec(request, parent.metadata.namespace, spec.edgeWorker.model.name, "spec.edgeWorker.model.name");
  const cloudModel = modelSpec(request, parent.metadata.namespace, spec.cloudWorker.model.name, "spec.cloudWorker.model.name");
  const missing = [edgeModel, cloudModel].filter(isMissing);
  if (missing.length > 0) {
    return { actions: withStatus(request, parent, missingCondition(missing), 0, 0) };
  }
  const desired = desiredChildren(parent, spec, { edgeModel: edgeModel as StorageSource, cloudModel: cloudModel as StorageSource });
  const outcomes = syncChildren(request, parent, desired);
  const deployments = ownedChildren(request, DEPLOYMENT_KEY, parent).filter((d) => !isTerminating(d));
  const byType = (type: WorkerType): KubeObject | undefined => deployments.find((d) => d.metadata.name === deploymentName(parent.metadata.name ?? "", type));
  const health = WORKERS.map((type) => ({ type, deployment: byType(type), health: workerHealth(byType(type)) }));
  const failed = health.filter((h) => h.health === "failed");
  const active = health.reduce((sum, h) => sum + availableReplicas(h.deployment), 0);
  const failedCount = failed.reduce((sum, h) => sum + failedReplicas(h.deployment), 0);
  const condition: ConditionUpdate =
    failed.length > 0
      ? { type: "Failed", status: "True", reason: "WorkerFailed", message: `${failed.map((h) => h.type).join(" and ")} worker failed` }
      : health.every((h) => h.health === "available")
        ? { type: "Running", status: "True", reason: "WorkersAvailable", message: "the edge and cloud workers are available" }
        : { type: "Pending", status: "True", reason: "WorkersNotReady", message: `waiting for ${health.filter((h) => h.health !== "available").map((h) => h.type).join(" and ")} worker` };
  const actions = [...outcomes.flatMap((o) => o.actions), ...withStatus(request, parent, condition, active, failedCount)];
  const requeue = outcomes.some((o) => o.claimed) ? CLAIM_TTL_SECONDS + 1 : outcomes.some((o) => o.wait) ? WAIT_SECONDS : undefined;
  return requeue === undefined ? { actions } : { actions, requeueAfterSeconds: requeue };
}

function syncChildren(request: ReconcileRequest, parent: KubeObject, desired: DesiredChildren): ChildOutcome[] {
  const all = (key: string): KubeObject[] => request.children[key] ?? [];
  const gone = (key: string): KubeObject[] => deletedChildren(request, key, parent);
  const outcomes: ChildOutcome[] = WORKERS.map((type) =>
    syncNamedChild({
      parent,
      desired: desired.deployments[type],
      observed: all(DEPLOYMENT_KEY),
      deleted: gone(DEPLOYMENT_KEY),
      patchOf: (observed, want) => deploymentPatch(observed, want, desired.hpas[type] !== undefined),
    }),
  );
  outcomes.push(
    syncNamedChild({ parent, desired: desired.service, observed: all(SERVICE_KEY), deleted: gone(SERVICE_KEY), patchOf: servicePatch }),
  );
  for (const type of WORKERS) {
    const hpa = desired.hpas[type];
    if (hpa) {
      outcomes.push(syncNamedChild({ parent, desired: hpa, observed: all(HPA_KEY), deleted: gone(HPA_KEY), patchOf: specPatch }));
    }
  }
  outcomes.push(removeStrays(request, parent, desired));
  return outcomes;
}

/**
 * Children we control under a name the spec no longer wants are deleted: the HPA of a
 * worker whose `hpa` was removed, and a Deployment, Service or HPA named before names were
 * bounded (a JI of 47 to 63 characters had `<ji>-deployment-<type>` longer than 63), which
 * would otherwise run beside its successor. Objects we do not control are never touched.
 */
function removeStrays(request: ReconcileRequest, parent: KubeObject, desired: DesiredChildren): ChildOutcome {
  const wanted = new Set([...Object.values(desired.deployments), desired.service, ...Object.values(desired.hpas)].map((o) => `${o.kind}/${o.metadata.name ?? ""}`));
  const stale = [DEPLOYMENT_KEY, SERVICE_KEY, HPA_KEY]
    .flatMap((key) => ownedChildren(request, key, parent))
    .filter((o) => !wanted.has(`${o.kind}/${o.metadata.name ?? ""}`) && !isTerminating(o));
  const actions: Decided[] = stale.flatMap((o) => [deleteOf(o), eventOn(parent, "Normal", "Deleted", `deleted ${o.kind} ${o.metadata.name ?? ""}`)]);
  return { actions, wait: false, claimed: false };
}

function specOf(object: KubeObject): Record<string, unknown> {
  const spec = object["spec"];
  return typeof spec === "object" && spec !== null ? (spec as Record<string, unknown>) : {};
}

/** Rolls a Deployment in place: new template (a rolling update), replicas unless an HPA owns them. */
function deploymentPatch(observed: KubeObject, desired: KubeObject, autoscaled: boolean): Record<string, unknown> {
  const want = specOf(desired);
  const spec: Record<string, unknown> = { template: createMergePatch(specOf(observed)["template"], want["template"]) };
  if (!autoscaled) spec["replicas"] = want["replicas"];
  return { metadata: { labels: desired.metadata.labels }, spec };
}

function servicePatch(_observed: KubeObject, desired: KubeObject): Record<string, unknown> {
  const want = specOf(desired);
  return { metadata: { labels: desired.metadata.labels }, spec: { type: want["type"], selector: want["selector"], ports: want["ports"] } };
}

function specPatch(observed: KubeObject, desired: KubeObject): Record<string, unknown> {
  return { metadata: { labels: desired.metadata.labels }, spec: createMergePatch(specOf(observed), specOf(desired)) as Record<string, unknown> };
}

const MODEL_NOT_READY = "ModelNotReady";

function missingCondition(missing: readonly MissingReference[]): ConditionUpdate {
  return { type: "Pending", status: "True", reason: MODEL_NOT_READY, message: describeMissing(missing) };
}

/** Failures, and references the user must fix, are Warnings; the rest is Normal. */
function eventTypeOf(condition: ConditionUpdate): "Normal" | "Warning" {
  return condition.type === "Failed" || condition.reason === MODEL_NOT_READY ? "Warning" : "Normal";
}

/**
 * The status action (only when something changed) and, when the True condition changes
 * (or a Warning's message does: another Model is missing), an Event saying so. Conditions
 * of the other types turn False with the current reason and message (`setExclusive`).
 * `observedGeneration` is the generation this plan converges to.
 */
function withStatus(request: ReconcileRequest, parent: KubeObject, condition: ConditionUpdate, active: number, failed: number): Decided[] {
  const current = statusOf(parent);
  const parsed = Condition.array().safeParse(current["conditions"] ?? []);
  const before = uniqueByType(parsed.success ? parsed.data : []);
  const conditions = setExclusive(before, condition, JI_CONDITION_TYPES, request.now, "lastHeartbeatTime");
  const next: Record<string, unknown> = {
    conditions,
    startTime: typeof current["startTime"] === "string" ? current["startTime"] : request.now,
    active,
    failed,
  };
  if (parent.metadata.generation !== undefined) next["observedGeneration"] = parent.metadata.generation;
  const status = statusIfChanged(parent, current, next);
  const wasTrue = before.find((c) => c.status === "True");
  const eventType = eventTypeOf(condition);
  const changed = !wasTrue || wasTrue.type !== condition.type || wasTrue.reason !== condition.reason || (eventType === "Warning" && wasTrue.message !== condition.message);
  if (!changed) return status;
  return [...status, eventOn(parent, eventType, condition.reason, `${condition.type}: ${condition.message}`)];
}
