/**
 * The mutating webhook on Pod CREATE: a pod created already bound to an autonomous edge
 * node (a pod with `spec.nodeName` set, a mirror pod is left alone) gets its
 * not-ready/unreachable tolerationSeconds at once, its originals kept, so it is right from
 * its first moment. A pod created unbound (most of them) is the controller's, once it is
 * bound. Losing the webhook only delays that: failurePolicy Ignore.
 */
import type { AdmissionRequest, AdmissionResponse, KubeObject } from "../../../protocol/index.ts";
import type { Webhook, WebhookDeclaration } from "../../kit/controller.ts";
import { allow, patchWith } from "../../kit/admission.ts";
import { EDGE_WORKER, ORIGINAL_NOT_READY, ORIGINAL_UNREACHABLE } from "./names.ts";
import { NODE_KEY, boundNodeOf, targetFor } from "./target.ts";
import { tolerationsAtCreate } from "./tolerations.ts";
import { nodesAndPools } from "./related.ts";

/** Namespaces never sent: the control plane's, the node leases', and edgeloop's own (the relay must start whatever happens). */
export const UNWATCHED_NAMESPACES: readonly string[] = ["kube-system", "kube-node-lease", "edgeloop"];

/**
 * The webhook as declared. `related` is left to the controller declaration (the pod's
 * node, named at `object.spec.nodeName`, and the nodes of its pool). `onlyWhen` keeps
 * unbound pods, nearly all of them, at the relay; `forwardWhen` keeps there the pods bound
 * to a node that is not an edge node too (a Sedna replacement on a cloud node), unless
 * they carry kept originals: for those alone {@link reviewPod} has something to do (an
 * edge node's pods are set or restored, other pods' kept originals restored).
 */
export const podWebhookSpec: WebhookDeclaration = {
  name: "autonomy-pods",
  type: "mutating",
  rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
  failurePolicy: "Ignore",
  // Pods, Nodes and Endpoints are written by the cluster itself (kubelets, node-lifecycle, the endpoint controllers): never held on the link to the Worker (ADR 0034).
  decidedAt: "relay",
  timeoutSeconds: 3,
  namespaceSelector: { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: [...UNWATCHED_NAMESPACES] }] },
  onlyWhen: ["object.spec.nodeName"],
  forwardWhen: [
    { found: { apiVersion: "v1", kind: "Node", namedBy: ["object.spec.nodeName"], selector: { matchLabels: { [EDGE_WORKER]: "true" } } } },
    { path: "object.metadata.annotations", hasKey: [ORIGINAL_NOT_READY, ORIGINAL_UNREACHABLE] },
  ],
  related: nodesAndPools(["object.spec.nodeName"]),
};

/**
 * Reviews a pod creation: bound to a node found among `related` nodes, it gets the
 * JSONPatch of its tolerations and original annotations (see `tolerationsAtCreate`);
 * anything else (not a CREATE, no node name, node unknown, nothing to change) is
 * admitted as it is.
 */
export function reviewPod(request: AdmissionRequest, related: Readonly<Record<string, readonly KubeObject[]>>): AdmissionResponse {
  const pod = request.object;
  if (request.operation !== "CREATE" || pod === null || pod === undefined) return allow(request);
  const nodeName = boundNodeOf(pod);
  if (nodeName === undefined) return allow(request);
  const nodes = related[NODE_KEY] ?? [];
  const node = nodes.find((candidate) => candidate.metadata.name === nodeName);
  if (node === undefined) return allow(request);
  return patchWith(request, tolerationsAtCreate(pod, targetFor(node, nodes)));
}

/** The pod webhook. */
export const podWebhook: Webhook = { spec: podWebhookSpec, review: reviewPod };
