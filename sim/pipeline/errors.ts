import { ApiError } from "../contract.ts";
import type { ResourceType } from "../registry/resource.ts";

/** `pods "x"` / `models.sedna.io "x"`: how Kubernetes names an object in messages. */
export function qualified(type: Pick<ResourceType, "group" | "plural">): string {
  return type.group === "" ? type.plural : `${type.plural}.${type.group}`;
}

function details(type: Pick<ResourceType, "group" | "plural" | "kind">, name: string): Record<string, unknown> {
  return { name, group: type.group, kind: type.plural };
}

/** 404 NotFound for one object. */
export function notFound(type: Pick<ResourceType, "group" | "plural" | "kind">, name: string): ApiError {
  return new ApiError(404, "NotFound", `${qualified(type)} "${name}" not found`, details(type, name));
}

/** 409 AlreadyExists. */
export function alreadyExists(type: Pick<ResourceType, "group" | "plural" | "kind">, name: string): ApiError {
  return new ApiError(409, "AlreadyExists", `${qualified(type)} "${name}" already exists`, details(type, name));
}

/** 409 Conflict for a stale resourceVersion. */
export function conflict(type: Pick<ResourceType, "group" | "plural" | "kind">, name: string, why = "the object has been modified; please apply your changes to the latest version and try again"): ApiError {
  return new ApiError(409, "Conflict", `Operation cannot be fulfilled on ${qualified(type)} "${name}": ${why}`, details(type, name));
}

/** One field error of a 422 Invalid. */
export interface Cause {
  readonly field: string;
  readonly reason: "FieldValueInvalid" | "FieldValueRequired" | "FieldValueNotSupported" | "FieldValueForbidden" | "FieldValueTooLong" | "FieldValueDuplicate" | "FieldValueTypeInvalid";
  /** As Kubernetes prints it after `field: `, e.g. `Required value` or `Invalid value: "x": ...`. */
  readonly message: string;
}

/** 422 Invalid listing the field errors, worded as kube-apiserver words them. */
export function invalid(kind: string, group: string, name: string, causes: readonly Cause[]): ApiError {
  // field.ErrorList.ToAggregate: the message names each distinct error once (the causes keep every one).
  const lines = [...new Set(causes.map((c) => `${c.field}: ${c.message}`))];
  const summary = lines.length === 1 ? lines[0] : `[${lines.join(", ")}]`;
  const qualifiedKind = group === "" ? kind : `${kind}.${group}`;
  return new ApiError(422, "Invalid", `${qualifiedKind} "${name}" is invalid: ${summary}`, {
    name,
    group,
    kind,
    causes: causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field })),
  });
}

/** 400 BadRequest. */
export function badRequest(message: string): ApiError {
  return new ApiError(400, "BadRequest", message);
}

/** 403 Forbidden (namespace terminating, etc.). */
export function forbidden(message: string, extra?: Record<string, unknown>): ApiError {
  return new ApiError(403, "Forbidden", message, extra);
}

/**
 * 504 Timeout for a watch from a resourceVersion the store has not reached (a server
 * restored from an older backup): worded and shaped as kube-apiserver's
 * `storage.NewTooLargeResourceVersionError`, whose `ResourceVersionTooLarge` cause is
 * what client-go's reflector relists on.
 */
export function tooLargeResourceVersion(requested: number, current: number): ApiError {
  return new ApiError(504, "Timeout", `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
    retryAfterSeconds: 1,
  });
}

/** 405 MethodNotAllowed. */
export function methodNotAllowed(): ApiError {
  return new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
}

/** 410 Gone for a resourceVersion older than the event history (`oldest`: the oldest it still holds, as the watch cache says). */
export function gone(rv: string, oldest?: number): ApiError {
  return new ApiError(410, "Expired", `too old resource version: ${rv}${oldest !== undefined ? ` (${oldest})` : ""}`);
}

/** 410 Gone for a list at an exact resourceVersion that was compacted away. */
export function listTooOld(): ApiError {
  return new ApiError(410, "Expired", "The resourceVersion for the provided list is too old.");
}

/** 500 InternalError. */
export function internal(message: string): ApiError {
  return new ApiError(500, "InternalError", `Internal error occurred: ${message}`);
}
