/**
 * Decoding a written body, as kube-apiserver's decoder does: a body that is no object is
 * refused (400), the fields the kind does not declare are dropped and reported as the
 * request's `fieldValidation` asks (Warn when absent: warnings; Strict: an error), and
 * the kind may refuse values its Go types could not hold.
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { ApiError, PatchType } from "../contract.ts";
import { badRequest } from "../pipeline/errors.ts";
import { dropUnknownFields, goFormat, introduced, strictDecodingError, strictPatchError, undeclaredFieldError, unknownFieldMessage, type FieldValidation } from "../pipeline/unknown-fields.ts";
import type { ResourceType } from "../registry/resource.ts";
import type { Kind } from "./kinds/kind.ts";
import { objectShapeProblem, type Obj } from "./objects.ts";

/** How a body is decoded. */
export interface DecodeOptions {
  /** A status write keeps only the body's status: only that is decoded. */
  readonly subresource?: "status" | "finalize";
  /** What unknown fields cause; Warn when absent, as upstream. */
  readonly fieldValidation?: FieldValidation;
}

/** Where a request's warnings go (none when undefined). */
export type Warn = ((message: string) => void) | undefined;

/**
 * The part of a written body the write keeps: a status write keeps only the body's
 * `status` (and its metadata names the object), so only that is decoded. Status writes
 * are the kubelet's most frequent, and decoding a whole pod each time was the sim's
 * largest cost under load.
 */
function kept(object: KubeObject, options: DecodeOptions): KubeObject {
  if (options.subresource !== "status") return object;
  const status = (object as Obj).status;
  return { apiVersion: object.apiVersion, kind: object.kind, metadata: object.metadata, ...(status === undefined ? {} : { status }) } as KubeObject;
}

/**
 * A body decoded: unknown fields dropped and reported (warnings, or `strictError` for
 * Strict). `before` gives the unknown fields the object already had (a patch reports
 * only what it brought in); `typed` refuses any (server-side apply).
 */
function decodeBody(kind: Kind, resource: ResourceType, object: KubeObject, options: DecodeOptions, warn: Warn, strictError: (unknown: readonly string[]) => ApiError, before?: () => readonly string[], typed = false): KubeObject {
  // What a body or a patch made may be anything: refuse a non-object before reading it.
  const problem = objectShapeProblem(object);
  if (problem) throw badRequest(problem);
  const decoded = dropUnknownFields(resource, kept(object, options), object.apiVersion);
  kind.checkDecoded?.(decoded.object);
  if (decoded.unknown.length === 0) return decoded.object;
  const unknown = before ? introduced(decoded.unknown, before()) : decoded.unknown;
  if (unknown.length === 0) return decoded.object;
  const mode = options.fieldValidation ?? "Warn";
  if (typed || mode === "Strict") throw strictError(unknown);
  if (mode === "Warn" && warn) for (const path of unknown) warn(unknownFieldMessage(path));
  return decoded.object;
}

/** The body of a create or an update, decoded. */
export function decode(kind: Kind, resource: ResourceType, body: KubeObject, options: DecodeOptions, warn: Warn): KubeObject {
  return decodeBody(kind, resource, body, options, warn, (unknown) => strictDecodingError(resource.kind, body.apiVersion, unknown));
}

/** A patched object decoded: a strict failure shows the patch as upstream does (the patch map, or the patched object). */
export function decodePatched(kind: Kind, resource: ResourceType, base: KubeObject, patched: KubeObject, patch: unknown, patchType: PatchType, options: DecodeOptions, warn: Warn): KubeObject {
  const strict = (unknown: readonly string[]): ApiError => (patchType === "apply" ? undeclaredFieldError(patched, unknown) : strictPatchError(patchType === "strategic" ? goFormat(patch) : JSON.stringify(patched), unknown));
  return decodeBody(kind, resource, patched, options, warn, strict, () => dropUnknownFields(resource, kept(base, options), base.apiVersion).unknown, patchType === "apply");
}

/** Server-side apply needs every field typed: an unknown one is refused whatever the fieldValidation. */
export function typedApply(resource: ResourceType, object: KubeObject): KubeObject {
  const { unknown } = dropUnknownFields(resource, object, object.apiVersion);
  if (unknown.length > 0) throw undeclaredFieldError(object, unknown);
  return object;
}
