/**
 * Mutating webhook on core v1 Endpoints (CREATE and UPDATE): the not-ready addresses of
 * pods on an autonomous edge node that is down are moved back to the ready addresses, so
 * the Service keeps sending them traffic through the outage (see `keep-ready.ts` for when).
 * Upstream's ran on UPDATE only, so an Endpoints object created during an outage lost them.
 */
import type { AdmissionRequest, AdmissionResponse, KubeObject } from "../../../protocol/index.ts";
import type { Webhook, WebhookDeclaration } from "../../kit/controller.ts";
import { allow, patchWith } from "../../kit/admission.ts";
import { endpointFacts, keepContext, keepsReady, type KeepContext } from "./keep-ready.ts";
import { nodesAndPools, podsNamed } from "./related.ts";

/** The webhook's name (its route: `/v1/admission/autonomy-endpoints`). */
export const ENDPOINTS_WEBHOOK = "autonomy-endpoints";

type Obj = Readonly<Record<string, unknown>>;

function record(value: unknown): Obj | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : undefined;
}

function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * One subset with the addresses that `keepsReady` moved from `notReadyAddresses` to the
 * end of `addresses` (ports untouched; an emptied `notReadyAddresses` is left out, as the
 * API server stores it); `undefined` when none moved.
 */
export function remapSubset(subset: unknown, namespace: string | undefined, context: KeepContext): Obj | undefined {
  const value = record(subset);
  if (value === undefined) return undefined;
  const notReady = list(value["notReadyAddresses"]);
  const kept = notReady.filter((address) => keepsReady(endpointFacts(address, namespace), context));
  if (kept.length === 0) return undefined;
  const { notReadyAddresses: _moved, ...rest } = value;
  const left = notReady.filter((address) => !kept.includes(address));
  return { ...rest, addresses: [...list(value["addresses"]), ...kept], ...(left.length > 0 ? { notReadyAddresses: left } : {}) };
}

/** The Endpoints' subsets with the kept addresses moved, or `undefined` when nothing moves. */
export function remapEndpoints(endpoints: KubeObject, context: KeepContext): readonly unknown[] | undefined {
  const subsets = list((endpoints as { subsets?: unknown }).subsets);
  const remapped = subsets.map((subset) => remapSubset(subset, endpoints.metadata.namespace, context));
  if (remapped.every((subset) => subset === undefined)) return undefined;
  return subsets.map((subset, index) => remapped[index] ?? subset);
}

/** The review, pure: `now` is the clock the autonomy periods are measured with. */
export function reviewEndpoints(request: AdmissionRequest, related: Readonly<Record<string, readonly KubeObject[]>>, now: number): AdmissionResponse {
  const endpoints = request.object;
  if (endpoints === undefined || endpoints === null) return allow(request);
  const subsets = remapEndpoints(endpoints, keepContext(related, now));
  return subsets === undefined ? allow(request) : patchWith(request, [{ op: "replace", path: "/subsets", value: subsets }]);
}

/**
 * The declaration: CREATE and UPDATE of Endpoints, `Ignore` (losing the webhook only
 * means an address goes not-ready, as without autonomy), 3 s. Forwarded only when a
 * not-ready address names a node. `related` is filled by the controller: the nodes named
 * at `object.subsets[].notReadyAddresses[].nodeName` and their pool peers, the pods named
 * at `object.subsets[].notReadyAddresses[].targetRef.name`.
 */
export const ENDPOINTS_WEBHOOK_SPEC: WebhookDeclaration = {
  name: ENDPOINTS_WEBHOOK,
  type: "mutating",
  rules: [{ operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["endpoints"] }],
  failurePolicy: "Ignore",
  // Pods, Nodes and Endpoints are written by the cluster itself (kubelets, node-lifecycle, the endpoint controllers): never held on the link to the Worker (ADR 0034).
  decidedAt: "relay",
  timeoutSeconds: 3,
  onlyWhen: ["object.subsets[].notReadyAddresses[].nodeName"],
  related: [...nodesAndPools(["object.subsets[].notReadyAddresses[].nodeName"]), ...podsNamed(["object.subsets[].notReadyAddresses[].targetRef.name"])],
};

/** The webhook: `reviewEndpoints` at the time of the request. */
export const endpointsWebhook: Webhook = {
  spec: ENDPOINTS_WEBHOOK_SPEC,
  review(request: AdmissionRequest, related: Readonly<Record<string, readonly KubeObject[]>>, now: number): AdmissionResponse {
    return reviewEndpoints(request, related, now);
  },
};
