/**
 * The protobuf message definitions of the kinds the sim serves (./proto/*.proto, field
 * numbers from upstream's generated.proto), loaded once with protobufjs, and which message
 * carries which apiVersion/kind.
 */
import { readFileSync } from "node:fs";
import protobuf from "protobufjs";
import type { Field, Root, Type } from "protobufjs";

const FILES = ["meta", "runtime", "intstr", "resource", "core", "apps", "batch", "autoscaling", "rbac", "scheduling", "authorization", "authentication"] as const;

/** The protobuf package of each API group version the definitions cover. */
const PACKAGES: Readonly<Record<string, string>> = {
  v1: "k8s.io.api.core.v1",
  "apps/v1": "k8s.io.api.apps.v1",
  "batch/v1": "k8s.io.api.batch.v1",
  "autoscaling/v1": "k8s.io.api.autoscaling.v1",
  "rbac.authorization.k8s.io/v1": "k8s.io.api.rbac.v1",
  "scheduling.k8s.io/v1": "k8s.io.api.scheduling.v1",
  "authorization.k8s.io/v1": "k8s.io.api.authorization.v1",
  "authentication.k8s.io/v1": "k8s.io.api.authentication.v1",
};

const META = "k8s.io.apimachinery.pkg.apis.meta.v1";

/** Kinds of meta/v1 that travel under any group version (a DELETE body, an error). */
const META_KINDS = new Set(["Status", "DeleteOptions"]);

/** Full names of the messages whose JSON form is not an object of their fields. */
export const SPECIAL = {
  time: `${META}.Time`,
  quantity: "k8s.io.apimachinery.pkg.api.resource.Quantity",
  intOrString: "k8s.io.apimachinery.pkg.util.intstr.IntOrString",
} as const;

let loaded: Root | undefined;

function root(): Root {
  if (loaded) return loaded;
  const parsed = new protobuf.Root();
  for (const file of FILES) {
    // keepCase: the upstream field names are already the JSON names.
    protobuf.parse(readFileSync(new URL(`./proto/${file}.proto`, import.meta.url), "utf8"), parsed, { keepCase: true });
  }
  parsed.resolveAll();
  loaded = parsed;
  return parsed;
}

/** The `runtime.Unknown` envelope message. */
export function unknownType(): Type {
  return root().lookupType("k8s.io.apimachinery.pkg.runtime.Unknown");
}

/** The message of `apiVersion`/`kind`, or undefined when the sim has no definition for it. */
export function messageType(apiVersion: string, kind: string): Type | undefined {
  const pkg = META_KINDS.has(kind) ? META : PACKAGES[apiVersion];
  if (!pkg || !/^[A-Z][A-Za-z0-9]*$/.test(kind)) return undefined;
  const found = root().lookup(`${pkg}.${kind}`);
  // Only top-level kinds: they carry metadata (DeleteOptions is the one meta kind without).
  if (!(found instanceof protobuf.Type) || !(found.fields.metadata || META_KINDS.has(kind))) return undefined;
  return found;
}

/** The full name of a message type, without the leading dot protobufjs puts on it. */
export function fullName(type: Type): string {
  return type.fullName.replace(/^\./, "");
}

/** Whether Go's JSON writes the field at its zero value too: a pointer, or no `omitempty` (see proto/meta.proto). */
export function keepsZero(field: Field): boolean {
  return field.options?.["(keep_zero)"] === true;
}

/** Whether the Go field is embedded inline: its fields sit in the parent's JSON object. */
export function isInline(field: Field): boolean {
  return field.options?.["(json_inline)"] === true;
}

/** The message type of a message-typed field, or undefined for a scalar. */
export function messageOf(field: Field): Type | undefined {
  const resolved = field.resolve().resolvedType;
  return resolved instanceof protobuf.Type ? resolved : undefined;
}
