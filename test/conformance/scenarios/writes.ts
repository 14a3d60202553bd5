/** Every patch type, the status subresource, deletecollection and dry-run. */
import type { Scenario } from "../scenario.ts";
import { APPS, configMap, NS, podTemplate } from "./objects.ts";

const deployment = (name: string, replicas = 1): Record<string, unknown> => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: podTemplate({ app: name }) },
});

const service = (name: string): Record<string, unknown> => ({ apiVersion: "v1", kind: "Service", metadata: { name }, spec: { type: "LoadBalancer", selector: { app: name }, ports: [{ port: 80 }] } });

export const writes: readonly Scenario[] = [
  {
    name: "patch: json, merge, strategic, apply on a ConfigMap",
    steps: [
      { method: "POST", path: `${NS}/configmaps`, body: configMap("p", { a: "1", b: "2" }, { labels: { x: "1" } }), compare: "none" },
      { name: "json patch add, replace, remove", method: "PATCH", path: `${NS}/configmaps/p`, contentType: "application/json-patch+json", body: [{ op: "add", path: "/data/c", value: "3" }, { op: "replace", path: "/data/a", value: "9" }, { op: "remove", path: "/data/b" }] },
      { name: "json patch test that fails", method: "PATCH", path: `${NS}/configmaps/p`, contentType: "application/json-patch+json", body: [{ op: "test", path: "/data/a", value: "0" }] },
      { name: "json patch remove of a missing path", method: "PATCH", path: `${NS}/configmaps/p`, contentType: "application/json-patch+json", body: [{ op: "remove", path: "/data/nope" }] },
      { name: "merge patch null deletes", method: "PATCH", path: `${NS}/configmaps/p`, contentType: "application/merge-patch+json", body: { data: { c: null }, metadata: { labels: { y: "2" } } } },
      { name: "strategic merge patch", method: "PATCH", path: `${NS}/configmaps/p`, contentType: "application/strategic-merge-patch+json", body: { data: { d: "4" } } },
      { name: "apply without fieldManager", method: "PATCH", path: `${NS}/configmaps/p`, contentType: "application/apply-patch+yaml", body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\ndata:\n  e: '5'\n" },
      { name: "apply with fieldManager", method: "PATCH", path: `${NS}/configmaps/p`, query: { fieldManager: "conformance" }, contentType: "application/apply-patch+yaml", body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\ndata:\n  e: '5'\n" },
      { name: "apply conflicting with an update's field", method: "PATCH", path: `${NS}/configmaps/p`, query: { fieldManager: "other" }, contentType: "application/apply-patch+yaml", body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\ndata:\n  a: 'other'\n" },
      { name: "apply, force", method: "PATCH", path: `${NS}/configmaps/p`, query: { fieldManager: "other", force: "true" }, contentType: "application/apply-patch+yaml", body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\ndata:\n  a: 'other'\n" },
      { name: "apply creates", method: "PATCH", path: `${NS}/configmaps/new`, query: { fieldManager: "conformance" }, contentType: "application/apply-patch+yaml", body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new\ndata:\n  a: '1'\n" },
      { name: "merge patch of a missing object", method: "PATCH", path: `${NS}/configmaps/missing`, contentType: "application/merge-patch+json", body: { data: { a: "1" } } },
      { name: "an unknown patch content type", method: "PATCH", path: `${NS}/configmaps/p`, contentType: "application/x-unknown", body: { data: { a: "1" } } },
    ],
  },
  {
    name: "patch: strategic merge of a Deployment's containers by name",
    steps: [
      { method: "POST", path: `${APPS}/deployments`, body: deployment("d"), compare: "none" },
      { name: "add an env var and a second container", method: "PATCH", path: `${APPS}/deployments/d`, contentType: "application/strategic-merge-patch+json", body: { spec: { template: { spec: { containers: [{ name: "main", env: [{ name: "A", value: "1" }] }, { name: "side", image: "busybox:1.36" }] } } } }, ignore: ["body.status", "body.metadata.annotations"] },
      { name: "delete a container by $patch", method: "PATCH", path: `${APPS}/deployments/d`, contentType: "application/strategic-merge-patch+json", body: { spec: { template: { spec: { containers: [{ name: "side", $patch: "delete" }] } } } }, ignore: ["body.status", "body.metadata.annotations"] },
      { name: "merge patch replaces the list", method: "PATCH", path: `${APPS}/deployments/d`, contentType: "application/merge-patch+json", body: { spec: { template: { spec: { containers: [{ name: "only", image: "busybox:1.36" }] } } } }, ignore: ["body.status", "body.metadata.annotations"] },
    ],
  },
  {
    name: "status subresource: spec and status written apart",
    steps: [
      // A Service's status no controller writes here (no load balancer): what is read is what was written.
      { method: "POST", path: `${NS}/services`, body: service("s"), compare: "none", capture: { rv: "metadata.resourceVersion" } },
      { name: "status in a main-resource patch is ignored", method: "PATCH", path: `${NS}/services/s`, contentType: "application/merge-patch+json", body: { status: { loadBalancer: { ingress: [{ ip: "192.0.2.1" }] } }, metadata: { labels: { l: "1" } } } },
      { name: "spec in a status patch is ignored", method: "PATCH", path: `${NS}/services/s/status`, contentType: "application/merge-patch+json", body: { spec: { sessionAffinity: "ClientIP" }, status: { loadBalancer: { ingress: [{ ip: "192.0.2.2" }] } } } },
      { method: "GET", path: `${NS}/services/s/status` },
      { name: "PUT status with a stale resourceVersion", method: "PUT", path: `${NS}/services/s/status`, body: { ...service("s"), metadata: { name: "s", resourceVersion: "{rv}" } } },
      { name: "a Deployment's status patched", method: "PATCH", path: `${APPS}/deployments/d/status`, contentType: "application/merge-patch+json", body: { status: { observedGeneration: 9 } } },
      { method: "POST", path: `${NS}/configmaps`, body: configMap("cm"), compare: "none" },
      { name: "a ConfigMap has no status", method: "GET", path: `${NS}/configmaps/cm/status` },
    ],
  },
  {
    name: "deletecollection answers the deleted list",
    steps: [
      { method: "POST", path: `${NS}/configmaps`, body: configMap("x1", {}, { labels: { del: "yes" } }), compare: "none" },
      { method: "POST", path: `${NS}/configmaps`, body: configMap("x2", {}, { labels: { del: "yes" } }), compare: "none" },
      { method: "POST", path: `${NS}/configmaps`, body: configMap("keep", {}, { labels: { del: "no" } }), compare: "none" },
      { name: "deletecollection labelSelector del=yes", method: "DELETE", path: `${NS}/configmaps`, query: { labelSelector: "del=yes" } },
      { method: "GET", path: `${NS}/configmaps`, query: { labelSelector: "del" } },
      { name: "deletecollection matching nothing", method: "DELETE", path: `${NS}/configmaps`, query: { labelSelector: "del=never" } },
    ],
  },
  {
    name: "dry-run: nothing stored, errors still reported",
    steps: [
      { name: "create dryRun=All", method: "POST", path: `${NS}/configmaps`, query: { dryRun: "All" }, body: configMap("dry") },
      { method: "GET", path: `${NS}/configmaps/dry` },
      { name: "dryRun=Invalid", method: "POST", path: `${NS}/configmaps`, query: { dryRun: "Invalid" }, body: configMap("dry") },
      { method: "POST", path: `${NS}/configmaps`, body: configMap("real"), compare: "none" },
      { name: "update dryRun=All", method: "PUT", path: `${NS}/configmaps/real`, query: { dryRun: "All" }, body: configMap("real", { a: "2" }) },
      { name: "patch dryRun=All", method: "PATCH", path: `${NS}/configmaps/real`, query: { dryRun: "All" }, contentType: "application/merge-patch+json", body: { data: { a: "3" } } },
      { name: "delete dryRun=All", method: "DELETE", path: `${NS}/configmaps/real`, query: { dryRun: "All" } },
      { method: "GET", path: `${NS}/configmaps/real` },
      { name: "an invalid object, dryRun=All", method: "POST", path: `${NS}/configmaps`, query: { dryRun: "All" }, body: configMap("Bad_Name") },
      { name: "a tls Secret without keys, dryRun=All", method: "POST", path: `${NS}/secrets`, query: { dryRun: "All" }, body: { apiVersion: "v1", kind: "Secret", metadata: { name: "tls" }, type: "kubernetes.io/tls" } },
    ],
  },
];
