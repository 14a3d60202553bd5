/**
 * What controllers do to what was written: finalizers, garbage collection in each
 * propagation policy, namespace termination, Deployments, Jobs, Endpoints; the custom
 * resources of a CRD; taint eviction (slow: a node's 40 s grace period).
 */
import type { RequestStep, Scenario } from "../scenario.ts";
import { APPS, BATCH, configMap, NS, ownerRef, pod, podTemplate, TOKEN_VOLUME, tokenVolumeIn } from "./objects.ts";

/** Pod fields each kubelet reports its own way (kwok's or the sim's): compared where a scenario is about them, dropped elsewhere. */
const POD_RUNTIME = ["status.conditions", "status.containerStatuses", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs", "status.qosClass", "status.startTime"];
const podRuntime = (prefix: string): string[] => POD_RUNTIME.map((p) => `${prefix}.${p}`);

const ownerAndDependent: readonly RequestStep[] = [
  { method: "POST", path: `${NS}/configmaps`, body: configMap("owner"), capture: { owner: "metadata.uid" } },
  { method: "POST", path: `${NS}/configmaps`, body: configMap("dependent", { a: "1" }, { ownerReferences: [ownerRef("ConfigMap", "owner", "owner", { blockOwnerDeletion: true })] }) },
];

const job = (name: string, command: string[], backoffLimit = 0): Record<string, unknown> => ({
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name },
  spec: { backoffLimit, template: { spec: { restartPolicy: "Never", containers: [{ name: "main", image: "busybox:1.36", command }] } } },
});

/** A small CRD with a default, a range, an enum, status and scale subresources. */
const WIDGET_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.conformance.edgeloop.dev" },
  spec: {
    group: "conformance.edgeloop.dev",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {}, scale: { specReplicasPath: ".spec.size", statusReplicasPath: ".status.size" } },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: { type: "object", required: ["colour"], properties: { colour: { type: "string", enum: ["red", "green"] }, size: { type: "integer", minimum: 1, maximum: 10, default: 3 } } },
              status: { type: "object", properties: { size: { type: "integer" } } },
            },
          },
        },
      },
    ],
  },
};

export const lifecycle: readonly Scenario[] = [
  {
    name: "finalizers hold a deletion until removed",
    steps: [
      { method: "POST", path: `${NS}/configmaps`, body: configMap("held", {}, { finalizers: ["conformance.edgeloop.dev/hold"] }) },
      { method: "DELETE", path: `${NS}/configmaps/held` },
      { method: "GET", path: `${NS}/configmaps/held` },
      { name: "a change to a deleted object's data", method: "PATCH", path: `${NS}/configmaps/held`, contentType: "application/merge-patch+json", body: { data: { b: "2" } } },
      { name: "adding a finalizer while deleting", method: "PATCH", path: `${NS}/configmaps/held`, contentType: "application/json-patch+json", body: [{ op: "add", path: "/metadata/finalizers/-", value: "conformance.edgeloop.dev/more" }] },
      { name: "removing the finalizers", method: "PATCH", path: `${NS}/configmaps/held`, contentType: "application/merge-patch+json", body: { metadata: { finalizers: null } } },
      { method: "GET", path: `${NS}/configmaps/held` },
    ],
  },
  {
    name: "garbage collection: background",
    steps: [
      ...ownerAndDependent,
      { method: "DELETE", path: `${NS}/configmaps/owner`, query: { propagationPolicy: "Background" } },
      { name: "dependent until collected", method: "GET", path: `${NS}/configmaps/dependent`, until: { status: 404 } },
    ],
  },
  {
    name: "garbage collection: foreground",
    steps: [
      ...ownerAndDependent,
      { method: "DELETE", path: `${NS}/configmaps/owner`, body: { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Foreground" } },
      { name: "owner until collected", method: "GET", path: `${NS}/configmaps/owner`, until: { status: 404 } },
      { method: "GET", path: `${NS}/configmaps/dependent` },
    ],
  },
  {
    name: "garbage collection: orphan",
    steps: [
      ...ownerAndDependent,
      { method: "DELETE", path: `${NS}/configmaps/owner`, query: { propagationPolicy: "Orphan" } },
      { name: "owner until gone", method: "GET", path: `${NS}/configmaps/owner`, until: { status: 404 } },
      { name: "dependent until its ownerReferences are gone", method: "GET", path: `${NS}/configmaps/dependent`, until: { path: "metadata.ownerReferences", equals: undefined } },
    ],
  },
  {
    name: "garbage collection: a dependent of a missing owner",
    steps: [
      { method: "POST", path: `${NS}/configmaps`, body: configMap("stray", {}, { ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "ghost", uid: "00000000-0000-0000-0000-000000000001" }] }) },
      { name: "stray until collected", method: "GET", path: `${NS}/configmaps/stray`, until: { status: 404 } },
    ],
  },
  {
    name: "namespace termination",
    steps: [
      { method: "POST", path: "/api/v1/namespaces", body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "{ns}-t" } } },
      { method: "POST", path: "/api/v1/namespaces/{ns}-t/configmaps", body: configMap("inside", {}, { finalizers: ["conformance.edgeloop.dev/hold"] }), compare: "status" },
      { method: "DELETE", path: "/api/v1/namespaces/{ns}-t" },
      { name: "a create in a terminating namespace", method: "POST", path: "/api/v1/namespaces/{ns}-t/configmaps", body: configMap("late") },
      { name: "namespace until its conditions say a finalizer remains", method: "GET", path: "/api/v1/namespaces/{ns}-t", until: { path: "status.conditions.length", equals: 5 } },
      { method: "PATCH", path: "/api/v1/namespaces/{ns}-t/configmaps/inside", contentType: "application/merge-patch+json", body: { metadata: { finalizers: null } }, compare: "status" },
      { name: "namespace until gone", method: "GET", path: "/api/v1/namespaces/{ns}-t", until: { status: 404, timeoutMs: 30_000 } },
    ],
  },
  {
    name: "deployments: replicas made, scaled, status",
    steps: [
      { method: "POST", path: `${APPS}/deployments`, body: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 2, selector: { matchLabels: { app: "web" } }, template: podTemplate({ app: "web" }) } } },
      { name: "until available", method: "GET", path: `${APPS}/deployments/web`, until: { path: "status.availableReplicas", equals: 2 } },
      { method: "GET", path: `${APPS}/replicasets`, query: { labelSelector: "app=web" } },
      { method: "GET", path: `${NS}/pods`, query: { labelSelector: "app=web" }, ignore: [...podRuntime("body.items.*"), ...tokenVolumeIn("body.items.*"), "body.items.*.spec.nodeName"] },
      { name: "scale to 1", method: "PATCH", path: `${APPS}/deployments/web/scale`, contentType: "application/merge-patch+json", body: { spec: { replicas: 1 } } },
      { name: "until one replica", method: "GET", path: `${APPS}/deployments/web`, until: { path: "status.replicas", equals: 1 } },
    ],
  },
  {
    name: "jobs: complete and fail",
    steps: [
      { method: "POST", path: `${BATCH}/jobs`, body: job("ok", ["sleep", "1"]) },
      { method: "POST", path: `${BATCH}/jobs`, body: job("bad", ["false"]) },
      { name: "ok until succeeded", method: "GET", path: `${BATCH}/jobs/ok`, until: { path: "status.succeeded", equals: 1 } },
      { name: "bad until failed", method: "GET", path: `${BATCH}/jobs/bad`, until: { path: "status.failed", equals: 1 } },
      { method: "GET", path: `${NS}/pods`, query: { labelSelector: "job-name=ok" }, ignore: [...podRuntime("body.items.*"), ...tokenVolumeIn("body.items.*"), "body.items.*.spec.nodeName"] },
      { name: "delete with propagationPolicy=Foreground", method: "DELETE", path: `${BATCH}/jobs/ok`, query: { propagationPolicy: "Foreground" } },
      { name: "its pods until gone", method: "GET", path: `${NS}/pods`, query: { labelSelector: "job-name=ok" }, until: { path: "items.length", equals: 0 } },
    ],
  },
  {
    name: "endpoints: a ready pod behind a service",
    steps: [
      { method: "POST", path: `${NS}/services`, body: { apiVersion: "v1", kind: "Service", metadata: { name: "ep" }, spec: { selector: { app: "ep" }, ports: [{ name: "http", port: 80, targetPort: 8080 }] } }, compare: "status" },
      { method: "POST", path: `${NS}/pods`, body: pod("ep-1", { node: "edge1", labels: { app: "ep" } }), compare: "status" },
      { name: "endpoints until one address", method: "GET", path: `${NS}/endpoints/ep`, until: { path: "subsets.0.addresses.length", equals: 1 } },
      { name: "endpointslices until one endpoint", method: "GET", path: "/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices", query: { labelSelector: "kubernetes.io/service-name=ep" }, until: { path: "items.0.endpoints.length", equals: 1 } },
      { method: "DELETE", path: `${NS}/pods/ep-1`, query: { gracePeriodSeconds: "0" }, compare: "status" },
      { name: "endpoints until no address", method: "GET", path: `${NS}/endpoints/ep`, until: { path: "subsets", equals: undefined } },
    ],
  },
  {
    name: "crd: sedna models",
    crds: true,
    steps: [
      { method: "POST", path: "/apis/sedna.io/v1alpha1/namespaces/{ns}/models", body: { apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "m" }, spec: { url: "s3://m", format: "pb" } }, capture: { rv: "metadata.resourceVersion" } },
      { method: "GET", path: "/apis/sedna.io/v1alpha1/namespaces/{ns}/models" },
      { name: "an unknown field (strict)", method: "POST", path: "/apis/sedna.io/v1alpha1/namespaces/{ns}/models", query: { fieldValidation: "Strict" }, body: { apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "m2" }, spec: { url: "s3://m", format: "pb", extra: 1 } } },
      { name: "an unknown field (pruned)", method: "POST", path: "/apis/sedna.io/v1alpha1/namespaces/{ns}/models", query: { fieldValidation: "Ignore" }, body: { apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "m3" }, spec: { url: "s3://m", format: "pb", extra: 1 } } },
      { name: "a required field missing", method: "POST", path: "/apis/sedna.io/v1alpha1/namespaces/{ns}/models", body: { apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "m4" }, spec: { url: "s3://m" } } },
      { name: "status patched", method: "PATCH", path: "/apis/sedna.io/v1alpha1/namespaces/{ns}/models/m/status", contentType: "application/merge-patch+json", body: { status: { metrics: [{ key: "acc", value: "0.9" }] } } },
      { name: "a strategic merge patch on a custom resource", method: "PATCH", path: "/apis/sedna.io/v1alpha1/namespaces/{ns}/models/m", contentType: "application/strategic-merge-patch+json", body: { spec: { format: "onnx" } } },
      { name: "a stale update", method: "PUT", path: "/apis/sedna.io/v1alpha1/namespaces/{ns}/models/m", body: { apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "m", resourceVersion: "{rv}" }, spec: { url: "s3://m", format: "pb" } } },
      { method: "GET", path: "/apis/sedna.io/v1alpha1/namespaces/{ns}/models/nope" },
      { method: "DELETE", path: "/apis/sedna.io/v1alpha1/namespaces/{ns}/models/m" },
    ],
  },
  {
    name: "crd: a definition and a custom resource of it",
    steps: [
      { method: "POST", path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", body: WIDGET_CRD },
      { name: "until Established", method: "GET", path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.conformance.edgeloop.dev", until: { path: "status.conditions.1.status", equals: "True" } },
      { name: "until served", method: "GET", path: "/apis/conformance.edgeloop.dev/v1/namespaces/{ns}/widgets", until: { status: 200 } },
      { name: "a widget, size defaulted", method: "POST", path: "/apis/conformance.edgeloop.dev/v1/namespaces/{ns}/widgets", body: { apiVersion: "conformance.edgeloop.dev/v1", kind: "Widget", metadata: { name: "w" }, spec: { colour: "red" } } },
      { name: "a size out of range", method: "POST", path: "/apis/conformance.edgeloop.dev/v1/namespaces/{ns}/widgets", body: { apiVersion: "conformance.edgeloop.dev/v1", kind: "Widget", metadata: { name: "big" }, spec: { colour: "red", size: 99 } } },
      { name: "a colour not in the enum", method: "POST", path: "/apis/conformance.edgeloop.dev/v1/namespaces/{ns}/widgets", body: { apiVersion: "conformance.edgeloop.dev/v1", kind: "Widget", metadata: { name: "blue" }, spec: { colour: "blue" } } },
      { name: "scale subresource", method: "GET", path: "/apis/conformance.edgeloop.dev/v1/namespaces/{ns}/widgets/w/scale" },
      { name: "scale patched", method: "PATCH", path: "/apis/conformance.edgeloop.dev/v1/namespaces/{ns}/widgets/w/scale", contentType: "application/merge-patch+json", body: { spec: { replicas: 5 } } },
      { name: "the widget scaled", method: "GET", path: "/apis/conformance.edgeloop.dev/v1/namespaces/{ns}/widgets/w" },
      { method: "DELETE", path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.conformance.edgeloop.dev", compare: "status" },
    ],
  },
  {
    name: "deployments: the scale subresource",
    steps: [
      { method: "POST", path: `${APPS}/deployments`, body: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "sc" }, spec: { replicas: 0, selector: { matchLabels: { app: "sc" } }, template: podTemplate({ app: "sc" }) } }, compare: "status" },
      { method: "GET", path: `${APPS}/deployments/sc/scale`, ignore: ["body.status"] },
      { name: "PUT scale", method: "PUT", path: `${APPS}/deployments/sc/scale`, body: { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "sc", namespace: "{ns}" }, spec: { replicas: 0 } }, ignore: ["body.status"] },
      { name: "scale of a missing deployment", method: "GET", path: `${APPS}/deployments/nope/scale` },
    ],
  },
  {
    name: "taint eviction: a node's heartbeat stops",
    slow: true,
    steps: [
      { method: "POST", path: `${NS}/pods`, body: { ...pod("tolerant", { node: "edge2" }), spec: { nodeName: "edge2", tolerations: [{ key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 5 }], containers: [{ name: "main", image: "busybox:1.36" }] } }, compare: "status" },
      { method: "POST", path: `${NS}/pods`, body: { ...pod("forever", { node: "edge2" }), spec: { nodeName: "edge2", tolerations: [{ key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" }], containers: [{ name: "main", image: "busybox:1.36" }] } }, compare: "status" },
      { name: "tolerant until Running", method: "GET", path: `${NS}/pods/tolerant`, until: { path: "status.phase", equals: "Running" }, compare: "status" },
      { name: "stop edge2's heartbeat", method: "PATCH", path: "/api/v1/nodes/edge2", contentType: "application/merge-patch+json", body: { metadata: { annotations: { "sim.edgeloop.dev/heartbeat": "stopped" } } }, compare: "status" },
      { name: "edge2 until tainted unreachable", method: "GET", path: "/api/v1/nodes/edge2", until: { path: "spec.taints.length", equals: 2, timeoutMs: 90_000 }, ignore: ["body.status", "body.metadata"] },
      // Evicted: marked for deletion; with its kubelet unreachable a real pod then stays Terminating (docs/sim-differences.md).
      { name: "tolerant until marked for deletion (or gone)", method: "GET", path: `${NS}/pods/tolerant`, until: { exists: "metadata.deletionTimestamp", orStatus: 404, timeoutMs: 30_000 }, compare: "status" },
      { name: "forever stays", method: "GET", path: `${NS}/pods/forever`, ignore: ["body.status", "body.metadata", ...TOKEN_VOLUME] },
      { name: "resume edge2's heartbeat", method: "PATCH", path: "/api/v1/nodes/edge2", contentType: "application/json-patch+json", body: [{ op: "remove", path: "/metadata/annotations/sim.edgeloop.dev~1heartbeat" }], compare: "status" },
      { name: "edge2 until untainted", method: "GET", path: "/api/v1/nodes/edge2", until: { path: "spec.taints", equals: undefined, timeoutMs: 60_000 }, compare: "status" },
    ],
  },
];
