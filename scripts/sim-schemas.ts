/**
 * Generates `sim/schema/builtin.json`: the OpenAPI v3 schemas of the built-in kinds the sim
 * serves, and of every type they reach, from the models of @kubernetes/client-node (which
 * are generated from the upstream OpenAPI spec). The sim uses them to drop, warn about or
 * refuse unknown fields and to serve `/openapi/v3` for `kubectl explain`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import * as k8s from "@kubernetes/client-node";

const HELP = `usage: node scripts/sim-schemas.ts [--check] [--help]

Writes sim/schema/builtin.json: the schemas of the built-in kinds the sim serves, from the
models of @kubernetes/client-node. Run it after upgrading that package or adding a kind.

  --check   do not write; exit 1 when the file differs from what would be generated
  --help    show this help`;

/** One built-in kind: its group/version/kind and the client-node model describing it. */
interface Root {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly model: string;
}

/**
 * The kinds whose schemas the sim knows, core first (a type reached from several kinds is
 * named after the first). batch/v1 Job is here before the sim serves it, so serving it
 * needs no schema change.
 */
export const ROOTS: readonly Root[] = [
  { group: "", version: "v1", kind: "Namespace", model: "V1Namespace" },
  { group: "", version: "v1", kind: "Pod", model: "V1Pod" },
  { group: "", version: "v1", kind: "Service", model: "V1Service" },
  { group: "", version: "v1", kind: "Endpoints", model: "V1Endpoints" },
  { group: "", version: "v1", kind: "Node", model: "V1Node" },
  { group: "", version: "v1", kind: "Event", model: "CoreV1Event" },
  { group: "", version: "v1", kind: "Secret", model: "V1Secret" },
  { group: "", version: "v1", kind: "ConfigMap", model: "V1ConfigMap" },
  { group: "", version: "v1", kind: "ServiceAccount", model: "V1ServiceAccount" },
  { group: "apps", version: "v1", kind: "Deployment", model: "V1Deployment" },
  { group: "apps", version: "v1", kind: "ReplicaSet", model: "V1ReplicaSet" },
  { group: "batch", version: "v1", kind: "Job", model: "V1Job" },
  { group: "discovery.k8s.io", version: "v1", kind: "EndpointSlice", model: "V1EndpointSlice" },
  { group: "autoscaling", version: "v2", kind: "HorizontalPodAutoscaler", model: "V2HorizontalPodAutoscaler" },
  { group: "coordination.k8s.io", version: "v1", kind: "Lease", model: "V1Lease" },
  { group: "scheduling.k8s.io", version: "v1", kind: "PriorityClass", model: "V1PriorityClass" },
  { group: "scheduling.k8s.io", version: "v1alpha2", kind: "Workload", model: "V1alpha2Workload" },
  { group: "scheduling.k8s.io", version: "v1alpha2", kind: "PodGroup", model: "V1alpha2PodGroup" },
  { group: "rbac.authorization.k8s.io", version: "v1", kind: "Role", model: "V1Role" },
  { group: "rbac.authorization.k8s.io", version: "v1", kind: "RoleBinding", model: "V1RoleBinding" },
  { group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole", model: "V1ClusterRole" },
  { group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRoleBinding", model: "V1ClusterRoleBinding" },
  { group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition", model: "V1CustomResourceDefinition" },
  { group: "admissionregistration.k8s.io", version: "v1", kind: "MutatingWebhookConfiguration", model: "V1MutatingWebhookConfiguration" },
  { group: "admissionregistration.k8s.io", version: "v1", kind: "ValidatingWebhookConfiguration", model: "V1ValidatingWebhookConfiguration" },
];

/** Models whose package is not that of the first kind reaching them. */
const PACKAGES: Readonly<Record<string, string>> = {
  V1ObjectMeta: "io.k8s.apimachinery.pkg.apis.meta.v1",
  V1ManagedFieldsEntry: "io.k8s.apimachinery.pkg.apis.meta.v1",
  V1OwnerReference: "io.k8s.apimachinery.pkg.apis.meta.v1",
  V1LabelSelector: "io.k8s.apimachinery.pkg.apis.meta.v1",
  V1LabelSelectorRequirement: "io.k8s.apimachinery.pkg.apis.meta.v1",
  V1Condition: "io.k8s.apimachinery.pkg.apis.meta.v1",
  V1PodTemplateSpec: "io.k8s.api.core.v1",
};
/**
 * Required properties upstream's OpenAPI lists that the client-node model leaves optional
 * (its generator made `PriorityClass.value` optional).
 */
const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  V1PriorityClass: ["value"],
};
export const INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";

interface Attribute {
  readonly name: string;
  readonly baseName: string;
  readonly type: string;
  readonly format: string;
}

type Model = { getAttributeTypeMap(): Attribute[] };
type Schema = Record<string, unknown>;

const models = k8s as unknown as Record<string, Model | undefined>;
const MODELS_DIR = join(dirname(createRequire(import.meta.url).resolve("@kubernetes/client-node")), "gen", "models");

function model(name: string): Model | undefined {
  const found = models[name];
  return found && typeof found.getAttributeTypeMap === "function" ? found : undefined;
}

function packageOf(root: Root): string {
  if (root.group === "apiextensions.k8s.io") return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${root.version}`;
  const short = root.group === "" ? "core" : root.group.replace(/\.k8s\.io$/, "").replace(/\.authorization$/, "");
  return `io.k8s.api.${short}.${root.version}`;
}

/** `V1PodSpec` → `PodSpec`, `CoreV1Event` → `Event`, `DiscoveryV1EndpointPort` → `EndpointPort`. */
function shortName(modelName: string): string {
  return modelName.replace(/^([A-Z][a-z]+)?V\d+((alpha|beta)\d+)?(?=[A-Z])/, "");
}

/**
 * The first sentence of a description: enough for `kubectl explain` to say what a field
 * is while keeping the file small (the full texts are 250 kB).
 */
function firstSentence(text: string): string {
  const m = /^(.*?[.!?])\s+(?=[A-Z"(])/s.exec(text);
  return m?.[1] ?? text;
}

/** Descriptions (of the type and of each property) and required properties, read from the model's .d.ts. */
function docs(modelName: string): { description: string | undefined; properties: Map<string, string>; required: string[] } {
  const text = readFileSync(join(MODELS_DIR, `${modelName}.d.ts`), "utf8");
  const unescape = (s: string): string => firstSentence(s.replace(/\\(['"\\])/g, "$1").trim());
  const classDoc = /\/\*\*\n\* ([^\n]*)\n\*\/\nexport declare class/.exec(text);
  const properties = new Map<string, string>();
  for (const m of text.matchAll(/\/\*\*\n\s*\* ([^\n]*)\n\s*\*\/\n\s*'([^']+)'\??:/g)) properties.set(m[2] ?? "", unescape(m[1] ?? ""));
  const required = [...text.matchAll(/^\s*'([^']+)':/gm)].map((m) => m[1] ?? "");
  return { description: classDoc ? unescape(classDoc[1] ?? "") : undefined, properties, required };
}

/** Generates the document: `kinds` (GVK → schema name) and `schemas` (name → OpenAPI v3 schema, `$ref`s by name). */
export function generate(): { source: string; kinds: Record<string, string>; schemas: Record<string, Schema> } {
  // Breadth-first from the roots: each model is named once, in the package of the kind that reached it first.
  const names = new Map<string, string>();
  const packages = new Map<string, string>();
  const order: string[] = [];
  const nameOf = (modelName: string, pkg: string): string => {
    const known = names.get(modelName);
    if (known) return known;
    const name = `${PACKAGES[modelName] ?? pkg}.${shortName(modelName)}`;
    if ([...names.values()].includes(name)) throw new Error(`two models map to ${name}`);
    names.set(modelName, name);
    packages.set(modelName, pkg);
    order.push(modelName);
    return name;
  };
  const fieldSchema = (type: string, format: string, pkg: string): Schema => {
    const array = /^Array<(.+)>$/.exec(type);
    if (array) return { type: "array", items: fieldSchema(array[1] ?? "", format, pkg) };
    const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
    if (map) return { type: "object", additionalProperties: fieldSchema(map[1] ?? "", format, pkg) };
    if (type === "string") return format ? { type: "string", format } : { type: "string" };
    if (type === "number") return format === "double" || format === "float" ? { type: "number", format } : { type: "integer", ...(format ? { format } : {}) };
    if (type === "boolean") return { type: "boolean" };
    if (type === "Date" || type === "V1MicroTime") return { type: "string", format: "date-time" };
    if (type === "IntOrString") return { $ref: INT_OR_STRING };
    if (type === "any" || type === "object") return { type: "object", "x-kubernetes-preserve-unknown-fields": true };
    if (model(type)) return { $ref: nameOf(type, pkg) };
    throw new Error(`unknown client-node type ${type}`);
  };
  for (const root of ROOTS) nameOf(root.model, packageOf(root));
  const schemas: Record<string, Schema> = {
    [INT_OR_STRING]: { description: "IntOrString is a type that can hold an int32 or a string.", "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] },
  };
  for (let i = 0; i < order.length; i++) {
    const modelName = order[i] ?? "";
    const pkg = packages.get(modelName) ?? "";
    const attributes = model(modelName)?.getAttributeTypeMap() ?? [];
    const { description, properties: descriptions, required } = docs(modelName);
    const properties: Record<string, Schema> = {};
    for (const a of attributes) {
      const d = descriptions.get(a.name);
      properties[a.baseName] = { ...(d ? { description: d } : {}), ...fieldSchema(a.type, a.format, pkg) };
    }
    const root = ROOTS.find((r) => r.model === modelName);
    const requiredJson = [...new Set([...required, ...(REQUIRED[modelName] ?? [])])].map((r) => attributes.find((a) => a.name === r)?.baseName ?? r);
    schemas[names.get(modelName) ?? ""] = {
      ...(description ? { description } : {}),
      type: "object",
      ...(requiredJson.length > 0 ? { required: requiredJson } : {}),
      properties,
      ...(root ? { "x-kubernetes-group-version-kind": [{ group: root.group, kind: root.kind, version: root.version }] } : {}),
    };
  }
  const kinds = Object.fromEntries(ROOTS.map((r) => [`${r.group}/${r.version}/${r.kind}`, names.get(r.model) ?? ""]));
  const version = (JSON.parse(readFileSync(join(MODELS_DIR, "../../../package.json"), "utf8")) as { version: string }).version;
  const sorted = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { source: `@kubernetes/client-node ${version} models (OpenAPI of Kubernetes release-1.36); regenerate with node scripts/sim-schemas.ts`, kinds, schemas: sorted };
}

/** Where the generated document lives. */
export const OUTPUT = join(import.meta.dirname, "../sim/schema/builtin.json");

/** JSON with one schema per line: small, and diffs show which types changed. */
export function serialise(doc: ReturnType<typeof generate>): string {
  const schemas = Object.entries(doc.schemas).map(([name, schema]) => `${JSON.stringify(name)}:${JSON.stringify(schema)}`);
  return `{"source":${JSON.stringify(doc.source)},\n"kinds":${JSON.stringify(doc.kinds)},\n"schemas":{\n${schemas.join(",\n")}\n}}\n`;
}

function main(): number {
  let values: { check?: boolean; help?: boolean };
  try {
    values = parseArgs({ options: { check: { type: "boolean" }, help: { type: "boolean", short: "h" } }, strict: true }).values;
  } catch (error) {
    console.error(`sim-schemas: ${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const text = serialise(generate());
  if (values.check) {
    const current = readFileSync(OUTPUT, "utf8");
    if (current === text) return 0;
    console.error("sim-schemas: sim/schema/builtin.json is out of date; run node scripts/sim-schemas.ts");
    return 1;
  }
  writeFileSync(OUTPUT, text);
  console.error(JSON.stringify({ level: "info", msg: "wrote schemas", file: OUTPUT, schemas: Object.keys(JSON.parse(text).schemas as object).length }));
  return 0;
}

if (import.meta.main) process.exitCode = main();
