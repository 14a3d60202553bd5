/**
 * The built-in kinds' validation where users meet it, as kube-apiserver v1.32 words it:
 * object names per the kind's rule, generateName, labels, annotations, owner references
 * and finalizers, and the required fields of the kinds the sim serves (containers,
 * selectors matching templates, Service ports). Returns the field errors; each kind
 * (sim/api/kinds/) picks its own, the Validation step turns them into one 422 Invalid.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { versionOf } from "../../protocol/kube/api-version.ts";
import { matchesLabelRequirements, requirementsOfLabelSelector, type LabelSelectorObject } from "../../protocol/kube/selectors.ts";
import { asObj, type Obj } from "../api/objects.ts";
import type { Cause } from "./errors.ts";
import { validateTolerations } from "./tolerations.ts";
import { isConfigMapKey, isDns1123Label, isQualifiedName, isValidLabelValue, isValidPortName, isValidPortNum, type NameRule } from "../../protocol/kube/names.ts";

const ANNOTATIONS_LIMIT = 256 * 1024;

// ---- field errors, worded as field.Error.ErrorBody ---------------------------------

/** `Invalid value: <value>: <detail>`: strings quoted (Go's %q), numbers bare. */
function invalidCause(field: string, value: string | number, detail: string): Cause {
  return { field, reason: "FieldValueInvalid", message: `Invalid value: ${typeof value === "string" ? JSON.stringify(value) : String(value)}: ${detail}` };
}

function required(field: string, detail = ""): Cause {
  return { field, reason: "FieldValueRequired", message: detail ? `Required value: ${detail}` : "Required value" };
}

function duplicate(field: string, value: string): Cause {
  return { field, reason: "FieldValueDuplicate", message: `Duplicate value: ${JSON.stringify(value)}` };
}

function notSupported(field: string, value: string, supported: readonly string[]): Cause {
  return { field, reason: "FieldValueNotSupported", message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(", ")}` };
}

function forbiddenCause(field: string, detail: string): Cause {
  return { field, reason: "FieldValueForbidden", message: `Forbidden: ${detail}` };
}

const str = (value: unknown): string => (typeof value === "string" ? value : "");
const num = (value: unknown): number => (typeof value === "number" ? value : 0);
const list = (value: unknown): Obj[] => (Array.isArray(value) ? value.map(asObj) : []);
const strings = (value: unknown): Record<string, string> => asObj(value) as Record<string, string>;

/** Go's `%#v` of a `map[string]string` (keys sorted), as upstream prints template labels. */
function goMap(labels: Record<string, string> | undefined): string {
  if (labels === undefined) return "map[string]string(nil)";
  const entries = Object.keys(labels).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(labels[k])}`);
  return `map[string]string{${entries.join(", ")}}`;
}

/** How a `*metav1.LabelSelector` prints itself (its generated `String()`). */
function selectorString(selector: Obj): string {
  const labels = strings(selector.matchLabels);
  const matchLabels = Object.keys(labels).sort().map((k) => `${k}: ${labels[k]},`).join("");
  const expressions = list(selector.matchExpressions).map((e) => `LabelSelectorRequirement{Key:${str(e.key)},Operator:${str(e.operator)},Values:[${(Array.isArray(e.values) ? e.values : []).join(" ")}],},`).join("");
  return `&LabelSelector{MatchLabels:map[string]string{${matchLabels}},MatchExpressions:[]LabelSelectorRequirement{${expressions}},}`;
}

// ---- metadata ------------------------------------------------------------------------

/** `ValidateLabels`: every key a qualified name, every value a label value. */
export function validateLabels(labels: unknown, path: string): Cause[] {
  const causes: Cause[] = [];
  for (const [key, value] of Object.entries(strings(labels))) {
    for (const m of isQualifiedName(key)) causes.push(invalidCause(path, key, m));
    for (const m of isValidLabelValue(str(value))) causes.push(invalidCause(path, str(value), m));
  }
  return causes;
}

/** `ValidateAnnotations`: keys are qualified names (case-insensitive), 256 KiB in all. */
export function validateAnnotations(annotations: unknown, path: string): Cause[] {
  const causes: Cause[] = [];
  let size = 0;
  for (const [key, value] of Object.entries(strings(annotations))) {
    for (const m of isQualifiedName(key.toLowerCase())) causes.push(invalidCause(path, key, m));
    size += Buffer.byteLength(key) + Buffer.byteLength(str(value));
  }
  if (size > ANNOTATIONS_LIMIT) causes.push({ field: path, reason: "FieldValueTooLong", message: `Too long: must have at most ${ANNOTATIONS_LIMIT} bytes` });
  return causes;
}

function validateOwnerReferences(refs: unknown, path: string): Cause[] {
  const causes: Cause[] = [];
  let controller = "";
  for (const ref of list(refs)) {
    const apiVersion = str(ref.apiVersion);
    if (versionOf(apiVersion) === "") causes.push(invalidCause(`${path}.apiVersion`, apiVersion, "version must not be empty"));
    for (const field of ["kind", "name", "uid"]) if (str(ref[field]) === "") causes.push(invalidCause(`${path}.${field}`, "", "must not be empty"));
    if (ref.controller === true) {
      const name = `${str(ref.kind)}/${str(ref.name)}`;
      // Upstream prints the Go slice here (%#v, pointers included); the references as JSON say the same.
      if (controller) causes.push({ field: path, reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(refs)}: Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${name}` });
      else controller = name;
    }
  }
  return causes;
}

function validateFinalizers(finalizers: unknown, path: string): Cause[] {
  const names = Array.isArray(finalizers) ? finalizers.map(str) : [];
  const causes = names.flatMap((f) => isQualifiedName(f).map((m) => invalidCause(path, f, m)));
  if (names.includes("orphan") && names.includes("foregroundDeletion")) {
    causes.push({ field: path, reason: "FieldValueInvalid", message: `Invalid value: []string{${names.map((n) => JSON.stringify(n)).join(", ")}}: finalizer orphan and foregroundDeletion cannot be both set` });
  }
  return causes;
}

/** What both create and update check of metadata. */
function validateMetaCommon(meta: Obj): Cause[] {
  return [
    ...validateLabels(meta.labels, "metadata.labels"),
    ...validateAnnotations(meta.annotations, "metadata.annotations"),
    ...validateOwnerReferences(meta.ownerReferences, "metadata.ownerReferences"),
    ...validateFinalizers(meta.finalizers, "metadata.finalizers"),
  ];
}

/** `ValidateObjectMeta` on create: generateName, name (after generation) per the kind's rule, then the common checks. */
function validateMetaCreate(rule: NameRule, meta: Obj): Cause[] {
  const causes: Cause[] = [];
  const generateName = str(meta.generateName);
  if (generateName) for (const m of rule(generateName, true)) causes.push(invalidCause("metadata.generateName", generateName, m));
  const name = str(meta.name);
  if (!name) causes.push(required("metadata.name", "name or generateName is required"));
  else for (const m of rule(name, false)) causes.push(invalidCause("metadata.name", name, m));
  return [...causes, ...validateMetaCommon(meta)];
}

// ---- pods and templates --------------------------------------------------------------

const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const RESTART_POLICIES = ["Always", "OnFailure", "Never"];

function validateContainerPorts(ports: unknown, path: string): Cause[] {
  const causes: Cause[] = [];
  const names = new Set<string>();
  list(ports).forEach((port, i) => {
    const at = `${path}[${i}]`;
    const name = str(port.name);
    if (name) {
      const problems = isValidPortName(name);
      if (problems.length > 0) causes.push(...problems.map((m) => invalidCause(`${at}.name`, name, m)));
      else if (names.has(name)) causes.push(duplicate(`${at}.name`, name));
      else names.add(name);
    }
    const containerPort = num(port.containerPort);
    if (containerPort === 0) causes.push(required(`${at}.containerPort`));
    else causes.push(...isValidPortNum(containerPort).map((m) => invalidCause(`${at}.containerPort`, containerPort, m)));
    const hostPort = num(port.hostPort);
    if (hostPort !== 0) causes.push(...isValidPortNum(hostPort).map((m) => invalidCause(`${at}.hostPort`, hostPort, m)));
    const protocol = str(port.protocol);
    if (!protocol) causes.push(required(`${at}.protocol`));
    else if (!PROTOCOLS.includes(protocol)) causes.push(notSupported(`${at}.protocol`, protocol, PROTOCOLS));
  });
  return causes;
}

function validateContainers(containers: Obj[], path: string, names: Set<string>): Cause[] {
  const causes: Cause[] = [];
  containers.forEach((container, i) => {
    const at = `${path}[${i}]`;
    const name = str(container.name);
    if (!name) causes.push(required(`${at}.name`));
    else {
      causes.push(...isDns1123Label(name).map((m) => invalidCause(`${at}.name`, name, m)));
      if (names.has(name)) causes.push(duplicate(`${at}.name`, name));
      names.add(name);
    }
    if (!str(container.image)) causes.push(required(`${at}.image`));
    causes.push(...validateContainerPorts(container.ports, `${at}.ports`));
  });
  return causes;
}

/** `ValidatePodSpec`, the parts users meet: containers (names, images, ports), the restart policy and the tolerations. */
export function validatePodSpec(spec: Obj, path: string): Cause[] {
  const causes: Cause[] = [];
  const names = new Set<string>();
  const containers = list(spec.containers);
  if (containers.length === 0) causes.push(required(`${path}.containers`));
  causes.push(...validateContainers(containers, `${path}.containers`, names));
  causes.push(...validateContainers(list(spec.initContainers), `${path}.initContainers`, names));
  const restartPolicy = str(spec.restartPolicy);
  if (restartPolicy && !RESTART_POLICIES.includes(restartPolicy)) causes.push(notSupported(`${path}.restartPolicy`, restartPolicy, RESTART_POLICIES));
  causes.push(...validateTolerations(spec.tolerations, `${path}.tolerations`));
  return causes;
}

/** A workload's pod template: its labels, annotations and pod spec; required. */
export function validatePodTemplate(template: unknown, path: string): Cause[] {
  if (template === undefined || template === null) return [required(path)];
  const t = asObj(template);
  const meta = asObj(t.metadata);
  return [...validateLabels(meta.labels, `${path}.metadata.labels`), ...validateAnnotations(meta.annotations, `${path}.metadata.annotations`), ...validatePodSpec(asObj(t.spec), `${path}.spec`)];
}

// ---- workloads -----------------------------------------------------------------------

const OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist"];

/** `ValidateLabelSelector`; returns whether the selector can be evaluated besides its errors. */
function validateSelector(selector: Obj, path: string): { causes: Cause[]; usable: boolean } {
  const causes: Cause[] = validateLabels(selector.matchLabels, `${path}.matchLabels`);
  let usable = true;
  list(selector.matchExpressions).forEach((e, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const operator = str(e.operator);
    const values = Array.isArray(e.values) ? e.values : [];
    if (!OPERATORS.includes(operator)) {
      causes.push(invalidCause(`${at}.operator`, operator, "not a valid selector operator"));
      usable = false;
    } else if ((operator === "In" || operator === "NotIn") && values.length === 0) causes.push(required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    else if ((operator === "Exists" || operator === "DoesNotExist") && values.length > 0) causes.push(forbiddenCause(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    causes.push(...isQualifiedName(str(e.key)).map((m) => invalidCause(`${at}.key`, str(e.key), m)));
  });
  return { causes, usable };
}

/** Deployment and ReplicaSet specs: replicas, a non-empty selector matching the template's labels, a template that always restarts. */
export function validateReplicatedSpec(spec: Obj): Cause[] {
  const causes: Cause[] = [];
  if (typeof spec.replicas === "number" && spec.replicas < 0) causes.push(invalidCause("spec.replicas", spec.replicas, "must be greater than or equal to 0"));
  const template = asObj(spec.template);
  const labels = asObj(template.metadata).labels as Record<string, string> | undefined;
  if (spec.selector === undefined || spec.selector === null) causes.push(required("spec.selector"));
  else {
    const selector = asObj(spec.selector);
    const checked = validateSelector(selector, "spec.selector");
    causes.push(...checked.causes);
    const empty = Object.keys(strings(selector.matchLabels)).length + list(selector.matchExpressions).length === 0;
    if (empty) causes.push({ field: "spec.selector", reason: "FieldValueInvalid", message: `Invalid value: ${selectorString(selector)}: empty selector is invalid for deployment` });
    if (!checked.usable) {
      // A selector that cannot be evaluated stops the template checks, as upstream.
      causes.push({ field: "spec.selector", reason: "FieldValueInvalid", message: `Invalid value: ${selectorString(selector)}: invalid label selector` });
      return causes;
    }
    if (!empty && spec.template !== undefined && !matchesLabelRequirements(labels, requirementsOfLabelSelector(selector as LabelSelectorObject))) {
      causes.push({ field: "spec.template.metadata.labels", reason: "FieldValueInvalid", message: `Invalid value: ${goMap(labels)}: \`selector\` does not match template \`labels\`` });
    }
  }
  causes.push(...validatePodTemplate(spec.template, "spec.template"));
  const restartPolicy = str(asObj(template.spec).restartPolicy);
  if (spec.template !== undefined && restartPolicy && restartPolicy !== "Always") causes.push(notSupported("spec.template.spec.restartPolicy", restartPolicy, ["Always"]));
  return causes;
}

// ---- services and config -------------------------------------------------------------

const SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];

/** A Service's spec: its type, ports (names, numbers, protocols, target ports), an ExternalName's name. */
export function validateServiceSpec(spec: Obj): Cause[] {
  const causes: Cause[] = [];
  const type = str(spec.type) || "ClusterIP";
  const clusterIPs = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [spec.clusterIP];
  const headless = type === "ClusterIP" && clusterIPs.length === 1 && clusterIPs[0] === "None";
  const ports = list(spec.ports);
  if (ports.length === 0 && !headless && type !== "ExternalName") causes.push(required("spec.ports"));
  if (!SERVICE_TYPES.includes(type)) causes.push(notSupported("spec.type", type, SERVICE_TYPES));
  if (type === "ExternalName" && !str(spec.externalName)) causes.push(required("spec.externalName"));
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = `spec.ports[${i}]`;
    const name = str(port.name);
    if (ports.length > 1 && !name) causes.push(required(`${at}.name`));
    else if (name) {
      causes.push(...isDns1123Label(name).map((m) => invalidCause(`${at}.name`, name, m)));
      if (names.has(name)) causes.push(duplicate(`${at}.name`, name));
      names.add(name);
    }
    const number = num(port.port);
    causes.push(...isValidPortNum(number).map((m) => invalidCause(`${at}.port`, number, m)));
    const protocol = str(port.protocol);
    if (!protocol) causes.push(required(`${at}.protocol`));
    else if (!PROTOCOLS.includes(protocol)) causes.push(notSupported(`${at}.protocol`, protocol, PROTOCOLS));
    // targetPort defaults to port, so a missing port is reported twice, as upstream does.
    const target = port.targetPort ?? number;
    if (typeof target === "string") causes.push(...isValidPortName(target).map((m) => invalidCause(`${at}.targetPort`, target, m)));
    else causes.push(...isValidPortNum(num(target)).map((m) => invalidCause(`${at}.targetPort`, num(target), m)));
  });
  return causes;
}

/** ConfigMap and Secret keys of the maps `fields`. */
export function validateKeys(object: Obj, fields: readonly string[]): Cause[] {
  return fields.flatMap((field) => Object.keys(asObj(object[field])).flatMap((key) => isConfigMapKey(key).map((m) => invalidCause(`${field}[${key}]`, key, m))));
}

/** A Secret's data may hold at most 1 MiB (core.MaxSecretSize), counted in decoded bytes. */
const MAX_SECRET_SIZE = 1024 * 1024;

/**
 * ValidateSecret's size limit and per-type rules (pkg/apis/core/validation): a
 * service-account-token names its account, dockercfg/dockerconfigjson hold their key as a
 * JSON object, basic-auth has a username or a password key (either may be empty),
 * ssh-auth a non-empty private key, tls both `tls.crt` and `tls.key` (either may be
 * empty). `data` holds base64 values (stringData already merged).
 */
export function validateSecretType(o: Obj): Cause[] {
  const data = strings(o.data);
  const bytes = (key: string): Buffer => Buffer.from(str(data[key]), "base64");
  const has = (key: string): boolean => key in data;
  const need = (...keys: string[]): Cause[] => keys.filter((k) => !has(k)).map((k) => required(`data[${k}]`));
  const size = Object.keys(data).reduce((total, key) => total + bytes(key).length, 0);
  const tooLong: Cause[] = size > MAX_SECRET_SIZE ? [{ field: "data", reason: "FieldValueTooLong", message: `Too long: may not be more than ${MAX_SECRET_SIZE} bytes` }] : [];
  return [...tooLong, ...secretTypeRules(str(o.type), asObj(asObj(o.metadata).annotations), has, need, bytes)];
}

function secretTypeRules(type: string, annotations: Obj, has: (key: string) => boolean, need: (...keys: string[]) => Cause[], bytes: (key: string) => Buffer): Cause[] {
  switch (type) {
    case "kubernetes.io/service-account-token":
      return str(annotations["kubernetes.io/service-account.name"]) !== "" ? [] : [required("metadata.annotations[kubernetes.io/service-account.name]")];
    case "kubernetes.io/dockercfg":
      return has(".dockercfg") ? dockerConfigCauses(".dockercfg", bytes(".dockercfg")) : need(".dockercfg");
    case "kubernetes.io/dockerconfigjson":
      return has(".dockerconfigjson") ? dockerConfigCauses(".dockerconfigjson", bytes(".dockerconfigjson")) : need(".dockerconfigjson");
    case "kubernetes.io/basic-auth":
      return has("username") || has("password") ? [] : need("username", "password");
    case "kubernetes.io/ssh-auth":
      return bytes("ssh-privatekey").length > 0 ? [] : [required("data[ssh-privatekey]")];
    case "kubernetes.io/tls":
      return need("tls.crt", "tls.key");
    default:
      return [];
  }
}

/**
 * A docker config key must unmarshal into a Go map: a JSON object (or `null`). The detail
 * is encoding/json's for the common cases (its wording of a syntax error at a given
 * character is approximated).
 */
function dockerConfigCauses(key: string, value: Buffer): Cause[] {
  const text = value.toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // A character no JSON value begins with is named as encoding/json names it; any other syntax error is worded as a truncated input.
    const first = text.trimStart()[0];
    const detail = first !== undefined && !/[{["\-0-9tfn]/.test(first) ? `invalid character '${first}' looking for beginning of value` : "unexpected end of JSON input";
    return [invalidCause(`data[${key}]`, "<secret contents redacted>", detail)];
  }
  if (parsed === null || (typeof parsed === "object" && !Array.isArray(parsed))) return [];
  const goType = Array.isArray(parsed) ? "array" : typeof parsed === "boolean" ? "bool" : typeof parsed;
  return [invalidCause(`data[${key}]`, "<secret contents redacted>", `json: cannot unmarshal ${goType} into Go value of type map[string]interface {}`)];
}

/** ValidateSecretUpdate: the type is immutable. */
export function validateSecretUpdate(o: Obj, old: Obj): Cause[] {
  const type = str(o.type);
  return type === str(old.type) ? [] : [invalidCause("type", type, "field is immutable")];
}

// ---- metadata of every kind ------------------------------------------------------------

/**
 * The metadata field errors of `object`: on create (`old` undefined) with the kind's name
 * rule, on update without the name (immutable). A kind without a name rule (core/v1
 * Event) has its metadata not validated at all.
 */
export function validateMetadata(object: KubeObject, rule: NameRule | undefined, old?: KubeObject): Cause[] {
  if (!rule) return [];
  const meta = asObj(object.metadata);
  return old === undefined ? validateMetaCreate(rule, meta) : validateMetaCommon(meta);
}
