/** CRUD of the core kinds the controllers and walkthroughs use, and the Status bodies of failures. */
import type { Scenario } from "../scenario.ts";
import { configMap, NS, pod, TOKEN_VOLUME, tokenVolumeIn } from "./objects.ts";

/** What kwok reports where a kubelet would (it sets no PodReadyToStartContainers, no container ids): compared only where a scenario is about them. */
const KWOK_STATUS = ["body.status.conditions", "body.status.containerStatuses.*.containerID", "body.status.containerStatuses.*.imageID", "body.status.containerStatuses.*.state.terminated.containerID"];

export const core: readonly Scenario[] = [
  {
    name: "configmap crud",
    steps: [
      { method: "POST", path: `${NS}/configmaps`, body: configMap("one", { a: "1" }, { labels: { app: "x" } }), capture: { rv: "metadata.resourceVersion" } },
      { method: "GET", path: `${NS}/configmaps/one` },
      { method: "PUT", path: `${NS}/configmaps/one`, body: configMap("one", { a: "2" }, { resourceVersion: "{rv}" }) },
      { method: "PATCH", path: `${NS}/configmaps/one`, contentType: "application/merge-patch+json", body: { data: { b: "3" } } },
      { method: "GET", path: `${NS}/configmaps`, query: { labelSelector: "app" } },
      { method: "DELETE", path: `${NS}/configmaps/one` },
      { method: "GET", path: `${NS}/configmaps/one` },
    ],
  },
  {
    name: "status bodies: NotFound of a core and a grouped kind",
    steps: [
      { method: "GET", path: `${NS}/pods/nope` },
      { method: "GET", path: "/apis/apps/v1/namespaces/{ns}/deployments/nope" },
      { method: "DELETE", path: `${NS}/configmaps/nope` },
      { method: "GET", path: "/api/v1/nodes/no-such-node" },
      { method: "GET", path: "/api/v1/namespaces/{ns}/nosuchthings" },
    ],
  },
  {
    name: "status bodies: AlreadyExists and Conflict",
    steps: [
      { method: "POST", path: `${NS}/configmaps`, body: configMap("dup"), capture: { rv: "metadata.resourceVersion" } },
      { method: "POST", path: `${NS}/configmaps`, body: configMap("dup") },
      { method: "PATCH", path: `${NS}/configmaps/dup`, contentType: "application/merge-patch+json", body: { data: { a: "2" } } },
      { name: "PUT with a stale resourceVersion", method: "PUT", path: `${NS}/configmaps/dup`, body: configMap("dup", { a: "3" }, { resourceVersion: "{rv}" }) },
      { name: "PUT naming another object", method: "PUT", path: `${NS}/configmaps/dup`, body: configMap("other") },
    ],
  },
  {
    name: "status bodies: Invalid",
    steps: [
      { name: "a name no DNS subdomain", method: "POST", path: `${NS}/configmaps`, body: configMap("Not_Valid") },
      { name: "no name", method: "POST", path: `${NS}/configmaps`, body: { apiVersion: "v1", kind: "ConfigMap", metadata: {} } },
      { name: "pod without containers", method: "POST", path: `${NS}/pods`, body: { apiVersion: "v1", kind: "Pod", metadata: { name: "empty" }, spec: { containers: [] } } },
      { name: "label value too long", method: "POST", path: `${NS}/configmaps`, body: configMap("long", {}, { labels: { a: "x".repeat(64) } }) },
    ],
  },
  {
    name: "secrets: types validated",
    steps: [
      { method: "POST", path: `${NS}/secrets`, body: { apiVersion: "v1", kind: "Secret", metadata: { name: "opaque" }, type: "Opaque", data: { k: "dg==" }, stringData: { s: "plain" } } },
      { name: "a kubernetes.io/tls Secret without data", method: "POST", path: `${NS}/secrets`, body: { apiVersion: "v1", kind: "Secret", metadata: { name: "tls" }, type: "kubernetes.io/tls" } },
      { name: "a kubernetes.io/tls Secret with data", method: "POST", path: `${NS}/secrets`, body: { apiVersion: "v1", kind: "Secret", metadata: { name: "tls2" }, type: "kubernetes.io/tls", data: { "tls.crt": "", "tls.key": "" } } },
      { name: "a dockerconfigjson Secret without its key", method: "POST", path: `${NS}/secrets`, body: { apiVersion: "v1", kind: "Secret", metadata: { name: "docker" }, type: "kubernetes.io/dockerconfigjson", data: {} } },
      { name: "a basic-auth Secret", method: "POST", path: `${NS}/secrets`, body: { apiVersion: "v1", kind: "Secret", metadata: { name: "basic" }, type: "kubernetes.io/basic-auth", stringData: { username: "u" } } },
      { name: "a type change", method: "PATCH", path: `${NS}/secrets/opaque`, contentType: "application/merge-patch+json", body: { type: "kubernetes.io/basic-auth" } },
      { method: "GET", path: `${NS}/secrets/opaque` },
    ],
  },
  {
    name: "services: clusterIP, ports defaulted",
    steps: [
      { method: "POST", path: `${NS}/services`, body: { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: { selector: { app: "web" }, ports: [{ port: 80, targetPort: 8080 }] } } },
      { method: "POST", path: `${NS}/services`, body: { apiVersion: "v1", kind: "Service", metadata: { name: "headless" }, spec: { clusterIP: "None", selector: { app: "web" }, ports: [{ name: "http", port: 80 }] } } },
      { name: "two ports without names", method: "POST", path: `${NS}/services`, body: { apiVersion: "v1", kind: "Service", metadata: { name: "bad" }, spec: { ports: [{ port: 80 }, { port: 81 }] } } },
      { method: "GET", path: `${NS}/services` },
      { method: "DELETE", path: `${NS}/services/web` },
    ],
  },
  {
    name: "namespaces: what a new one holds",
    steps: [
      { method: "GET", path: `${NS}/serviceaccounts` },
      { method: "GET", path: `${NS}/configmaps` },
    ],
  },
  {
    name: "pods: ServiceAccount token volume",
    steps: [{ method: "POST", path: `${NS}/pods`, body: pod("p", { node: "edge1" }), ignore: ["body.status"] }],
  },
  {
    name: "pods: create defaulted, bound, deleted",
    steps: [
      // With a scheduler name no scheduler serves: neither kube-scheduler nor the sim's binds it before the Binding below.
      { method: "POST", path: `${NS}/pods`, body: { ...pod("p", { labels: { app: "p" } }), spec: { schedulerName: "conformance", containers: [{ name: "main", image: "busybox:1.36" }] } }, ignore: [...TOKEN_VOLUME] },
      { method: "POST", path: `${NS}/pods/p/binding`, body: { apiVersion: "v1", kind: "Binding", metadata: { name: "p" }, target: { apiVersion: "v1", kind: "Node", name: "edge1" } } },
      { name: "a second binding", method: "POST", path: `${NS}/pods/p/binding`, body: { apiVersion: "v1", kind: "Binding", metadata: { name: "p" }, target: { apiVersion: "v1", kind: "Node", name: "edge2" } } },
      { name: "GET until Running", method: "GET", path: `${NS}/pods/p`, until: { path: "status.phase", equals: "Running" }, ignore: [...TOKEN_VOLUME, ...KWOK_STATUS] },
      // kube-apiserver's answer carries a resourceVersion or not depending on whether kwok's own delete of the pod came first (seen both ways).
      { name: "delete with gracePeriodSeconds=0", method: "DELETE", path: `${NS}/pods/p`, query: { gracePeriodSeconds: "0" }, ignore: [...TOKEN_VOLUME, ...KWOK_STATUS, "body.metadata.resourceVersion"] },
      { name: "GET until gone", method: "GET", path: `${NS}/pods/p`, until: { status: 404 } },
    ],
  },
  {
    name: "pods: a sleep ends Succeeded, false ends Failed",
    steps: [
      { method: "POST", path: `${NS}/pods`, body: pod("ok", { node: "edge1", command: ["sleep", "1"], restartPolicy: "Never" }), compare: "status" },
      { method: "POST", path: `${NS}/pods`, body: pod("bad", { node: "edge1", command: ["false"], restartPolicy: "Never" }), compare: "status" },
      { name: "ok until Succeeded", method: "GET", path: `${NS}/pods/ok`, until: { path: "status.phase", equals: "Succeeded" }, ignore: [...TOKEN_VOLUME, ...KWOK_STATUS] },
      { name: "bad until Failed", method: "GET", path: `${NS}/pods/bad`, until: { path: "status.phase", equals: "Failed" }, ignore: [...TOKEN_VOLUME, ...KWOK_STATUS] },
      { name: "phase field selector", method: "GET", path: `${NS}/pods`, query: { fieldSelector: "status.phase=Succeeded" }, ignore: [...tokenVolumeIn("body.items.*"), ...KWOK_STATUS.map((p) => p.replace("body", "body.items.*"))] },
    ],
  },
  {
    name: "nodes: create, get, delete",
    steps: [
      { method: "POST", path: "/api/v1/nodes", body: { apiVersion: "v1", kind: "Node", metadata: { name: "c-node-crud", labels: { "conformance.edgeloop.dev/test": "yes" } } } },
      { method: "GET", path: "/api/v1/nodes", query: { labelSelector: "conformance.edgeloop.dev/test=yes" }, ignore: ["body.items.*.status", "body.items.*.spec.taints", "body.items.*.metadata.annotations"] },
      { method: "DELETE", path: "/api/v1/nodes/c-node-crud", compare: "status" },
      { method: "GET", path: "/api/v1/nodes/edge1", compare: "status" },
    ],
  },
  {
    name: "events: core v1 and events.k8s.io",
    steps: [
      { method: "POST", path: `${NS}/events`, body: { apiVersion: "v1", kind: "Event", metadata: { name: "e1" }, involvedObject: { kind: "Pod", name: "x", namespace: "{ns}" }, reason: "Test", message: "hello", type: "Normal", source: { component: "conformance" }, firstTimestamp: "2026-01-01T00:00:00Z", lastTimestamp: "2026-01-01T00:00:00Z", count: 1 } },
      { method: "POST", path: "/apis/events.k8s.io/v1/namespaces/{ns}/events", body: { apiVersion: "events.k8s.io/v1", kind: "Event", metadata: { name: "e2" }, eventTime: "2026-01-01T00:00:00.000000Z", regarding: { kind: "Pod", name: "x", namespace: "{ns}" }, reason: "Test", note: "hi", type: "Normal", action: "Testing", reportingController: "conformance.edgeloop.dev/x", reportingInstance: "x-1" } },
      { method: "GET", path: `${NS}/events` },
      { method: "GET", path: "/apis/events.k8s.io/v1/namespaces/{ns}/events" },
      { name: "an events.k8s.io Event without eventTime", method: "POST", path: "/apis/events.k8s.io/v1/namespaces/{ns}/events", body: { apiVersion: "events.k8s.io/v1", kind: "Event", metadata: { name: "e3" }, regarding: { kind: "Pod", name: "x" }, reason: "Test", type: "Normal", action: "A", reportingController: "c/x", reportingInstance: "x" } },
    ],
  },
  {
    name: "leases: crud",
    steps: [
      { method: "POST", path: "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases", body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "leader" }, spec: { holderIdentity: "a", leaseDurationSeconds: 15, acquireTime: "2026-01-01T00:00:00.000000Z", renewTime: "2026-01-01T00:00:00.000000Z", leaseTransitions: 0 } }, capture: { rv: "metadata.resourceVersion" } },
      { method: "PUT", path: "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/leader", body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "leader", resourceVersion: "{rv}" }, spec: { holderIdentity: "b", leaseDurationSeconds: 15, renewTime: "2026-01-01T00:00:01.000000Z", leaseTransitions: 1 } } },
      { name: "a second PUT from the stale resourceVersion", method: "PUT", path: "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/leader", body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "leader", resourceVersion: "{rv}" }, spec: { holderIdentity: "c" } } },
      { method: "GET", path: "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/leader" },
      { method: "DELETE", path: "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/leader" },
    ],
  },
];
