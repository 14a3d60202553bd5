/**
 * Mutating webhook on `discovery.k8s.io/v1` EndpointSlices (CREATE and UPDATE): an
 * endpoint of a pod on an autonomous edge node that is down is set ready again (see
 * `keep-ready.ts` for when), so the Service keeps sending it traffic through the outage.
 *
 * The conditions, as Kubernetes defines them: `ready` absent means ready, so only an
 * explicit `false` is changed; `serving` (the pod's readiness, terminating or not) is
 * set `true` with it where it is set, absent meaning serving already; a `terminating`
 * endpoint is never changed (its pod is going away; `ready` is false for it by
 * definition). Upstream's ran on UPDATE only.
 */
import type { AdmissionRequest, AdmissionResponse, KubeObject } from "../../../protocol/index.ts";
import type { Webhook, WebhookDeclaration } from "../../kit/controller.ts";
import type { JsonPatchOperation } from "../../kit/admission.ts";
import { allow, patchWith } from "../../kit/admission.ts";
import { endpointFacts, keepContext, keepsReady, type KeepContext } from "./keep-ready.ts";
import { nodesAndPools, podsNamed } from "./related.ts";

/** The webhook's name (its route: `/v1/admission/autonomy-endpointslices`). */
export const ENDPOINTSLICE_WEBHOOK = "autonomy-endpointslices";

type Obj = Readonly<Record<string, unknown>>;

function record(value: unknown): Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : {};
}

/** The operations that make endpoint `index` ready (and serving, where set) when `keepsReady` says so; none otherwise. */
export function readyOperations(endpoint: unknown, index: number, namespace: string | undefined, context: KeepContext): JsonPatchOperation[] {
  const conditions = record(record(endpoint)["conditions"]);
  if (conditions["ready"] !== false) return [];
  const terminating = conditions["terminating"] === true;
  if (!keepsReady(endpointFacts(endpoint, namespace, terminating), context)) return [];
  const operations: JsonPatchOperation[] = [{ op: "replace", path: `/endpoints/${index}/conditions/ready`, value: true }];
  if (conditions["serving"] === false) operations.push({ op: "replace", path: `/endpoints/${index}/conditions/serving`, value: true });
  return operations;
}

/** The operations for every endpoint of the slice. */
export function remapEndpointSlice(slice: KubeObject, context: KeepContext): JsonPatchOperation[] {
  const endpoints = (slice as { endpoints?: unknown }).endpoints;
  if (!Array.isArray(endpoints)) return [];
  return endpoints.flatMap((endpoint: unknown, index) => readyOperations(endpoint, index, slice.metadata.namespace, context));
}

/** The review, pure: `now` is the clock the autonomy periods are measured with. */
export function reviewEndpointSlice(request: AdmissionRequest, related: Readonly<Record<string, readonly KubeObject[]>>, now: number): AdmissionResponse {
  const slice = request.object;
  if (slice === undefined || slice === null) return allow(request);
  return patchWith(request, remapEndpointSlice(slice, keepContext(related, now)));
}

/**
 * The declaration: CREATE and UPDATE of EndpointSlices, `Ignore`, 3 s, forwarded only
 * when an endpoint names a node. `related` is filled by the controller: the nodes named
 * at `object.endpoints[].nodeName` and their pool peers, the pods named at
 * `object.endpoints[].targetRef.name`.
 */
export const ENDPOINTSLICE_WEBHOOK_SPEC: WebhookDeclaration = {
  name: ENDPOINTSLICE_WEBHOOK,
  type: "mutating",
  rules: [{ operations: ["CREATE", "UPDATE"], apiGroups: ["discovery.k8s.io"], apiVersions: ["v1"], resources: ["endpointslices"] }],
  failurePolicy: "Ignore",
  // Pods, Nodes and Endpoints are written by the cluster itself (kubelets, node-lifecycle, the endpoint controllers): never held on the link to the Worker (ADR 0034).
  decidedAt: "relay",
  timeoutSeconds: 3,
  onlyWhen: ["object.endpoints[].nodeName"],
  related: [...nodesAndPools(["object.endpoints[].nodeName"]), ...podsNamed(["object.endpoints[].targetRef.name"])],
};

/** The webhook: `reviewEndpointSlice` at the time of the request. */
export const endpointSliceWebhook: Webhook = {
  spec: ENDPOINTSLICE_WEBHOOK_SPEC,
  review(request: AdmissionRequest, related: Readonly<Record<string, readonly KubeObject[]>>, now: number): AdmissionResponse {
    return reviewEndpointSlice(request, related, now);
  },
};
