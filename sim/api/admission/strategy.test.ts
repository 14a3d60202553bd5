import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../../protocol/index.ts";
import { Registry } from "../../registry/registry.ts";
import type { ResourceType } from "../../registry/resource.ts";
import { BUILTIN_KINDS, kindOf } from "../kinds/registry.ts";
import { fieldErrors } from "./strategy.ts";

const registry = new Registry(BUILTIN_KINDS.map((kind) => kind.resource));

function resource(apiVersion: string, kind: string): ResourceType {
  const found = registry.byKind(apiVersion, kind);
  assert.ok(found, `${apiVersion} ${kind} is served`);
  return found;
}

/** `field: message` of each cause, as they end up in the 422's message. */
function errors(apiVersion: string, kind: string, object: Record<string, unknown>, old?: Record<string, unknown>): string[] {
  const full = { apiVersion, kind, ...object } as unknown as KubeObject;
  const type = resource(apiVersion, kind);
  return fieldErrors(kindOf(type), full, old as unknown as KubeObject | undefined, registry).map((c) => `${c.field}: ${c.message}`);
}

const container = { name: "c", image: "busybox" };
const template = (labels: Record<string, string> | undefined, containers: unknown[] = [container]): Record<string, unknown> => ({ metadata: labels ? { labels } : {}, spec: { restartPolicy: "Always", containers } });

test("names per kind: subdomains for most, labels for namespaces, DNS-1035 labels for services, path segments for RBAC", () => {
  assert.deepEqual(errors("v1", "ConfigMap", { metadata: { name: "app.config" } }), []);
  assert.match(errors("v1", "ConfigMap", { metadata: { name: "Bad_Name" } })[0] ?? "", /^metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of/);
  assert.deepEqual(errors("v1", "Namespace", { metadata: { name: "a.b" } }), ['metadata.name: Invalid value: "a.b": must not contain dots']);
  assert.deepEqual(errors("v1", "Namespace", { metadata: { name: "n".repeat(64) } }), [`metadata.name: Invalid value: "${"n".repeat(64)}": must be no more than 63 characters`]);
  assert.match(errors("v1", "Service", { metadata: { name: "1svc" }, spec: { ports: [{ port: 80, protocol: "TCP" }] } })[0] ?? "", /^metadata\.name: Invalid value: "1svc": a DNS-1035 label must consist of/);
  assert.deepEqual(errors("rbac.authorization.k8s.io/v1", "ClusterRole", { metadata: { name: "system:aggregate-to-view" } }), []);
  assert.deepEqual(errors("v1", "Event", { metadata: { name: "Whatever_Events.1" } }), [], "core/v1 Events are not validated");
  assert.deepEqual(errors("v1", "ConfigMap", { metadata: {} }), ["metadata.name: Required value: name or generateName is required"]);
});

test("generateName is checked as a prefix, and the generated name as a name", () => {
  assert.deepEqual(errors("v1", "ConfigMap", { metadata: { generateName: "web-", name: "web-x2b4k" } }), []);
  const bad = errors("v1", "ConfigMap", { metadata: { generateName: "Web-", name: "Web-x2b4k" } });
  assert.equal(bad.length, 2);
  assert.match(bad[0] ?? "", /^metadata\.generateName: Invalid value: "Web-": a lowercase RFC 1123 subdomain/);
  assert.match(bad[1] ?? "", /^metadata\.name: Invalid value: "Web-x2b4k": a lowercase RFC 1123 subdomain/);
});

test("labels, annotations, owner references and finalizers", () => {
  const long = "v".repeat(64);
  assert.deepEqual(errors("v1", "ConfigMap", { metadata: { name: "c", labels: { app: long } } }), [`metadata.labels: Invalid value: "${long}": must be no more than 63 bytes`]);
  assert.deepEqual(errors("v1", "ConfigMap", { metadata: { name: "c", labels: { [`example.com/${"k".repeat(64)}`]: "v" } } }), [`metadata.labels: Invalid value: "example.com/${"k".repeat(64)}": name part must be no more than 63 characters`]);
  assert.deepEqual(errors("v1", "ConfigMap", { metadata: { name: "c", annotations: { "Example.COM/Mixed": "ok" } } }), [], "annotation keys are case-insensitive");
  assert.deepEqual(errors("v1", "ConfigMap", { metadata: { name: "c", annotations: { big: "x".repeat(256 * 1024) } } }), ["metadata.annotations: Too long: must have at most 262144 bytes"]);
  assert.deepEqual(errors("v1", "ConfigMap", { metadata: { name: "c", ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "" }] } }), ['metadata.ownerReferences.uid: Invalid value: "": must not be empty']);
  assert.equal(errors("v1", "ConfigMap", { metadata: { name: "c", finalizers: ["orphan", "foregroundDeletion"] } }).length, 1);
});

test("a pod needs containers, each with a name and an image; names are labels and unique; ports in range", () => {
  assert.deepEqual(errors("v1", "Pod", { metadata: { name: "p" }, spec: { containers: [] } }), ["spec.containers: Required value"]);
  assert.deepEqual(errors("v1", "Pod", { metadata: { name: "p" }, spec: { containers: [{ name: "c" }, { image: "x" }] } }), ["spec.containers[0].image: Required value", "spec.containers[1].name: Required value"]);
  assert.deepEqual(errors("v1", "Pod", { metadata: { name: "p" }, spec: { containers: [container, container] } }), ['spec.containers[1].name: Duplicate value: "c"']);
  assert.deepEqual(errors("v1", "Pod", { metadata: { name: "p" }, spec: { containers: [{ ...container, ports: [{ containerPort: 70000, protocol: "TCP" }, { protocol: "TCP" }, { containerPort: 80, protocol: "ICMP" }] }] } }), [
    "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
    "spec.containers[0].ports[1].containerPort: Required value",
    'spec.containers[0].ports[2].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
  ]);
  assert.deepEqual(errors("v1", "Pod", { metadata: { name: "p" }, spec: { restartPolicy: "Sometimes", containers: [container] } }), ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"']);
});

test("Deployments and ReplicaSets: a selector, not empty, matching the template's labels; a template that always restarts", () => {
  assert.deepEqual(errors("apps/v1", "Deployment", { metadata: { name: "d" }, spec: { selector: { matchLabels: { app: "d" } }, template: template({ app: "d" }) } }), []);
  assert.deepEqual(errors("apps/v1", "Deployment", { metadata: { name: "d" }, spec: { template: template({ app: "d" }) } }), ["spec.selector: Required value"]);
  assert.deepEqual(errors("apps/v1", "Deployment", { metadata: { name: "d" }, spec: { selector: {}, template: template({ app: "d" }) } }), [
    "spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}: empty selector is invalid for deployment",
  ]);
  assert.deepEqual(errors("apps/v1", "ReplicaSet", { metadata: { name: "r" }, spec: { selector: { matchLabels: { app: "r" } }, template: template({ app: "other", tier: "web" }) } }), [
    'spec.template.metadata.labels: Invalid value: map[string]string{"app":"other", "tier":"web"}: `selector` does not match template `labels`',
  ]);
  assert.deepEqual(errors("apps/v1", "Deployment", { metadata: { name: "d" }, spec: { selector: { matchExpressions: [{ key: "app", operator: "In", values: ["d"] }] }, template: template(undefined) } }), [
    "spec.template.metadata.labels: Invalid value: map[string]string(nil): `selector` does not match template `labels`",
  ]);
  assert.deepEqual(errors("apps/v1", "Deployment", { metadata: { name: "d" }, spec: { replicas: -1, selector: { matchLabels: { app: "d" } }, template: template({ app: "d" }, [{ name: "c" }]) } }), [
    "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
    "spec.template.spec.containers[0].image: Required value",
  ]);
  const never = { ...template({ app: "d" }), spec: { restartPolicy: "Never", containers: [container] } };
  assert.deepEqual(errors("apps/v1", "Deployment", { metadata: { name: "d" }, spec: { selector: { matchLabels: { app: "d" } }, template: never } }), ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']);
});

test("Services: ports required unless headless, each in range with a protocol; several ports need names", () => {
  const svc = (spec: Record<string, unknown>): string[] => errors("v1", "Service", { metadata: { name: "s" }, spec });
  assert.deepEqual(svc({ type: "ClusterIP", ports: [{ port: 80, protocol: "TCP", targetPort: 8080 }] }), []);
  assert.deepEqual(svc({ type: "ClusterIP", clusterIP: "10.96.0.9", clusterIPs: ["10.96.0.9"] }), ["spec.ports: Required value"]);
  assert.deepEqual(svc({ type: "ClusterIP", clusterIP: "None", clusterIPs: ["None"] }), [], "a headless Service may have no ports");
  assert.deepEqual(svc({ type: "ClusterIP", ports: [{ protocol: "TCP" }] }), [
    "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
    "spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive",
  ]);
  assert.deepEqual(svc({ type: "ClusterIP", ports: [{ port: 80, protocol: "TCP", targetPort: 80 }, { port: 443, protocol: "TCP", targetPort: "HTTPS" }] }), [
    "spec.ports[0].name: Required value",
    "spec.ports[1].name: Required value",
    'spec.ports[1].targetPort: Invalid value: "HTTPS": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    'spec.ports[1].targetPort: Invalid value: "HTTPS": must contain at least one letter (a-z)',
  ]);
  assert.deepEqual(svc({ type: "Balanced", ports: [{ port: 80, protocol: "TCP" }] }), ['spec.type: Unsupported value: "Balanced": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"']);
});

test("ConfigMap keys; updates check metadata but not the (immutable) name", () => {
  assert.match(errors("v1", "ConfigMap", { metadata: { name: "c" }, data: { "bad key": "v" } })[0] ?? "", /^data\[bad key\]: Invalid value: "bad key": a valid config key/);
  assert.deepEqual(errors("v1", "ConfigMap", { metadata: { name: "Legacy_Name", labels: { a: "-" } } }, { metadata: { name: "Legacy_Name" } }).length, 1);
});
