/**
 * The edgeloop wire protocol, version v2 (v1's messages; signatures cover the method,
 * path and query as well as the body: ADR 0001), and the Kubernetes object types: every
 * message between the relay and the Worker, as zod schemas with their inferred types, and
 * the pure functions both sides read them with, and (`kube/`) the Kubernetes basics every side
 * reads objects with: API versions, names, owner references, quantities, selectors, taints.
 * The floor of the project: every folder may import it, and it imports nothing of edgeloop
 * (lint enforces both).
 */
export const PROTOCOL_VERSION = "v2";
export * from "./objects.ts";
export * from "./reconcile.ts";
export * from "./plan.ts";
export * from "./paths.ts";
export * from "./mapping.ts";
export * from "./related.ts";
export * from "./permissions.ts";
export * from "./manifest.ts";
export * from "./admission.ts";
export * from "./api.ts";
export * from "./outbox.ts";
export * from "./channel.ts";
export * from "./errors.ts";
export * from "./signing.ts";
export * from "./kube/api-version.ts";
export * from "./kube/names.ts";
export * from "./kube/owner.ts";
export * from "./kube/quantity.ts";
export * from "./kube/selectors.ts";
export * from "./kube/taints.ts";
export * from "./json-depth.ts";
export * from "./readiness.ts";
