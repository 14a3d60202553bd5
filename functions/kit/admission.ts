/**
 * Building AdmissionResponses: allow, deny with a message the user reads in kubectl's
 * output, or allow with a JSONPatch (base64 of its UTF-8 JSON, as admission.k8s.io/v1
 * wants it). Pure; runs in workerd and Node alike.
 */
import type { AdmissionRequest, AdmissionResponse } from "../../protocol/index.ts";
import { base64 } from "./base64.ts";

/** One RFC 6902 operation. Paths are JSON Pointers: `~1` stands for `/`, `~0` for `~`. */
export type JsonPatchOperation =
  | { readonly op: "add" | "replace" | "test"; readonly path: string; readonly value: unknown }
  | { readonly op: "remove"; readonly path: string }
  | { readonly op: "move" | "copy"; readonly from: string; readonly path: string };

/** Admits the request unchanged; `warnings` are shown by kubectl. */
export function allow(request: Pick<AdmissionRequest, "uid">, warnings: readonly string[] = []): AdmissionResponse {
  return { uid: request.uid, allowed: true, ...(warnings.length > 0 ? { warnings: [...warnings] } : {}) };
}

/**
 * Refuses the request. `message` is what `kubectl apply` prints after "admission webhook
 * ... denied the request:": say what was wrong and what would be accepted.
 */
export function deny(request: Pick<AdmissionRequest, "uid">, message: string, code = 400, reason = code === 403 ? "Forbidden" : "Invalid"): AdmissionResponse {
  return { uid: request.uid, allowed: false, status: { code, reason, message } };
}

/** Admits the request with `operations` applied to the object; no operations is a plain allow. */
export function patchWith(request: Pick<AdmissionRequest, "uid">, operations: readonly JsonPatchOperation[], warnings: readonly string[] = []): AdmissionResponse {
  if (operations.length === 0) return allow(request, warnings);
  return { ...allow(request, warnings), patchType: "JSONPatch", patch: base64(JSON.stringify(operations)) };
}

/** Escapes one key for use in a JSON Pointer (`edgeloop.dev/x` → `edgeloop.dev~1x`). */
export function pointerSegment(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}
