/**
 * The validating webhook on edge Node CREATE and UPDATE guarding
 * `node.openyurt.io/autonomy-duration`:
 * - a value that is not a duration is refused, saying what a valid one looks like;
 * - while the edge hub reports its cache failed (the `Autonomy` condition `Unknown`), the
 *   value may not be added or changed: pods kept through an outage on a node whose cache
 *   fails would be served from a cache that does not hold them. Removing it is allowed.
 *
 * A value that does not change always passes, valid or not: a node that carries a bad
 * value from before the webhook (or was written while it was away) must stay updatable,
 * by the kubelet and the node lifecycle (taints, labels) included. Its bad value is
 * treated as "not autonomous" and reported by the controller's
 * `InvalidAutonomyDuration` Event. failurePolicy Fail: a bad value must not get in; but
 * node-lifecycle's own writes are never reviewed (`exemptUsers`): its `unreachable` taints
 * must land while the Worker (or the relay) is away, and they never carry a new duration.
 */
import type { AdmissionRequest, AdmissionResponse, KubeObject } from "../../../protocol/index.ts";
import type { Webhook, WebhookDeclaration } from "../../kit/controller.ts";
import { allow, deny } from "../../kit/admission.ts";
import { NODE_LIFECYCLE_USERS } from "../../../protocol/kube/controller-users.ts";
import { AUTONOMY_CONDITION, AUTONOMY_DURATION, EDGE_WORKER } from "./names.ts";
import { cacheFailed, cacheMessage, durationError } from "./node-autonomy.ts";

/** The webhook as declared: only nodes labelled as edge nodes are sent (cloud nodes never pay for it). */
export const nodeWebhookSpec: WebhookDeclaration = {
  name: "autonomy-nodes",
  type: "validating",
  rules: [{ operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"] }],
  failurePolicy: "Fail",
  // Pods, Nodes and Endpoints are written by the cluster itself (kubelets, node-lifecycle, the endpoint controllers): never held on the link to the Worker (ADR 0034).
  decidedAt: "relay",
  timeoutSeconds: 3,
  objectSelector: { matchLabels: { [EDGE_WORKER]: "true" } },
  // node-lifecycle's taints never carry a new autonomy-duration, and must land while the Worker is away (fail closed blocked them 55 s).
  exemptUsers: [...NODE_LIFECYCLE_USERS],
  related: [],
};

/** The node's `autonomy-duration`, if it has one. */
function durationOf(node: KubeObject | null | undefined): string | undefined {
  return node?.metadata.annotations?.[AUTONOMY_DURATION];
}

/** Why setting or changing the duration is refused while the cache fails. */
export function cacheFailedMessage(node: KubeObject): string {
  const message = cacheMessage(node);
  const detail = message === "" ? "" : ` (${message})`;
  return `${AUTONOMY_DURATION} cannot be added or changed while the node's edge hub reports its cache failed (condition ${AUTONOMY_CONDITION} is Unknown${detail}): its pods could not be kept through an outage. Set it once the condition is True again; removing it is allowed.`;
}

/**
 * Reviews a node write: admitted unless it brings a new `autonomy-duration` (absent
 * before, or different) that is not a duration, or that is written while the old
 * object's `Autonomy` condition is `Unknown` (a metadata update carries the old status,
 * so the old object is the one read).
 */
export function reviewNode(request: AdmissionRequest): AdmissionResponse {
  const value = durationOf(request.object);
  if (value === undefined) return allow(request);
  const old = request.operation === "UPDATE" ? request.oldObject : undefined;
  if (old !== undefined && old !== null && durationOf(old) === value) return allow(request);
  const error = durationError(value);
  if (error !== undefined) return deny(request, error);
  if (old !== undefined && old !== null && cacheFailed(old)) return deny(request, cacheFailedMessage(old), 403);
  return allow(request);
}

/** The node guard webhook. */
export const nodeWebhook: Webhook = { spec: nodeWebhookSpec, review: reviewNode };
