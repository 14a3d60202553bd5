/**
 * The query parameters of a write checked as kube-apiserver checks them before it reads
 * the body (apimachinery pkg/apis/meta/v1/validation ValidateCreateOptions,
 * ValidateUpdateOptions, ValidatePatchOptions and ValidateDeleteOptions' dryRun): an apply
 * names its `fieldManager`, only an apply takes `force`, a `fieldManager` is at most 128
 * bytes of printable characters, `dryRun` takes `All` only. A 422 about the options kind.
 * (`fieldValidation` is checked where it is read: pipeline/unknown-fields.ts.)
 */
import { invalid, type Cause } from "../pipeline/errors.ts";

/** The options kind each method's query parameters decode into (named in a 422 about them). */
const OPTIONS_KIND: Readonly<Record<string, string>> = { POST: "CreateOptions", PUT: "UpdateOptions", PATCH: "PatchOptions", DELETE: "DeleteOptions" };

const FIELD_MANAGER_MAX_BYTES = 128;

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** ValidateFieldManager: at most 128 bytes, every character printable (positions in bytes, as Go ranges over a string). */
export function fieldManagerCauses(fieldManager: string): Cause[] {
  const causes: Cause[] = [];
  if (Buffer.byteLength(fieldManager) > FIELD_MANAGER_MAX_BYTES) causes.push({ field: "fieldManager", reason: "FieldValueTooLong", message: `Too long: may not be more than ${FIELD_MANAGER_MAX_BYTES} bytes` });
  let position = 0;
  for (const character of fieldManager) {
    if (!PRINTABLE.test(character)) {
      const code = (character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
      causes.push({ field: "fieldManager", reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(fieldManager)}: invalid character U+${code} (at position ${position})` });
    }
    position += Buffer.byteLength(character);
  }
  return causes;
}

/** ValidateDryRun: `All` only. */
function dryRunCauses(values: readonly string[]): Cause[] {
  if (values.every((v) => v === "All")) return [];
  return [{ field: "dryRun", reason: "FieldValueNotSupported", message: `Unsupported value: ${JSON.stringify(values)}: supported values: "All"` }];
}

/** What is wrong with a write's options, in the validator's order; `apply` when the PATCH is a server-side apply. */
export function writeOptionsCauses(method: string, q: URLSearchParams, apply: boolean): Cause[] {
  const fieldManager = q.get("fieldManager") ?? "";
  const patchCauses: Cause[] = [];
  if (method === "PATCH" && apply && fieldManager === "") patchCauses.push({ field: "fieldManager", reason: "FieldValueRequired", message: "Required value: is required for apply patch" });
  if (method === "PATCH" && !apply && q.has("force")) patchCauses.push({ field: "force", reason: "FieldValueForbidden", message: "Forbidden: may not be specified for non-apply patch" });
  const managerCauses = method === "DELETE" ? [] : fieldManagerCauses(fieldManager);
  return [...patchCauses, ...managerCauses, ...dryRunCauses(q.getAll("dryRun"))];
}

/** Throws the 422 a write's options earn (nothing for a method that takes none). */
export function checkWriteOptions(method: string, q: URLSearchParams, contentType: string): void {
  const kind = OPTIONS_KIND[method];
  if (!kind) return;
  const causes = writeOptionsCauses(method, q, contentType.startsWith("application/apply-patch"));
  if (causes.length > 0) throw invalid(kind, "meta.k8s.io", "", causes);
}
