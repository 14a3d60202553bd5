/**
 * The edgeloop wire protocol, version v1: every message between the relay and the
 * Worker, as zod schemas with their inferred types.
 */
export const PROTOCOL_VERSION = "v1";
export * from "./objects.ts";
export * from "./reconcile.ts";
export * from "./plan.ts";
export * from "./manifest.ts";
export * from "./admission.ts";
export * from "./api.ts";
export * from "./outbox.ts";
export * from "./errors.ts";
export * from "./signing.ts";
