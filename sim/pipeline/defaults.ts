/**
 * Defaulting of the built-in kinds, as kube-apiserver's scheme defaults and strategies do:
 * pod specs and templates, Services, workloads, Secrets, Events, CRDs, and the `omitempty`
 * of what is stored. Pure functions; each kind (sim/api/kinds/) picks its own.
 */
import type { KubeObject } from "../../protocol/index.ts";

type Obj = Record<string, unknown>;

function obj(value: unknown): Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : {};
}

function list(value: unknown): Obj[] {
  return Array.isArray(value) ? value.map(obj) : [];
}

function defaultContainer(container: Obj): Obj {
  const image = typeof container.image === "string" ? container.image : "";
  const latest = !image.includes(":") || image.endsWith(":latest");
  return {
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
    imagePullPolicy: latest ? "Always" : "IfNotPresent",
    resources: {},
    ...container,
    ...(container.ports ? { ports: list(container.ports).map((p) => ({ protocol: "TCP", ...p })) } : {}),
  };
}

/** PodSpec defaults the API server applies (also to pod templates). */
export function defaultPodSpec(spec: Obj): Obj {
  return {
    restartPolicy: "Always",
    terminationGracePeriodSeconds: 30,
    dnsPolicy: "ClusterFirst",
    schedulerName: "default-scheduler",
    securityContext: {},
    ...spec,
    containers: list(spec.containers).map(defaultContainer),
    ...(spec.initContainers ? { initContainers: list(spec.initContainers).map(defaultContainer) } : {}),
  };
}

/**
 * SetDefaults_Pod: a container's requests default to its limits, resource by resource
 * (pods only, not templates). An extended resource (`nvidia.com/gpu`) is usually given as
 * a limit only; the scheduler counts requests.
 */
function defaultRequests(spec: Obj): Obj {
  const withRequests = (container: Obj): Obj => {
    const resources = obj(container.resources);
    const limits = obj(resources.limits);
    if (Object.keys(limits).length === 0) return container;
    return { ...container, resources: { ...resources, requests: { ...limits, ...obj(resources.requests) } } };
  };
  return {
    ...spec,
    containers: list(spec.containers).map(withRequests),
    ...(spec.initContainers ? { initContainers: list(spec.initContainers).map(withRequests) } : {}),
  };
}

/** A pod template as defaulted (Deployments, ReplicaSets, Jobs). */
export function defaultTemplate(template: unknown): Obj {
  const t = obj(template);
  return { ...t, metadata: obj(t.metadata), spec: defaultPodSpec(obj(t.spec)) };
}

function qosClass(spec: Obj): string {
  const containers = list(spec.containers);
  const resources = containers.map((c) => obj(c.resources));
  const any = resources.some((r) => Object.keys(obj(r.requests)).length > 0 || Object.keys(obj(r.limits)).length > 0);
  if (!any) return "BestEffort";
  const guaranteed = resources.every((r) => {
    const limits = obj(r.limits);
    const requests = { ...limits, ...obj(r.requests) };
    return limits.cpu !== undefined && limits.memory !== undefined && requests.cpu === limits.cpu && requests.memory === limits.memory;
  });
  return guaranteed ? "Guaranteed" : "Burstable";
}

/** Allocates ClusterIPs deterministically from a counter the caller owns. */
export type IpAllocator = () => string;

// Per kind: on create (status reset for kinds with a status subresource, spec defaults,
// allocations), and on every update and patch (kube-apiserver defaults whatever it
// decodes: the spec defaults a write may have removed or never had, a container added by
// a patch, without the create's status resets or allocations). Each returns a new object.

/** A kind with a status subresource starts without one: its status is its controller's to write. */
export function withoutStatus(object: KubeObject): KubeObject {
  const copy: Obj = { ...(object as KubeObject & Obj) };
  delete copy.status;
  return copy as KubeObject;
}

/** A pod as created: spec defaults, generation 1, phase Pending and its QoS class. */
export function defaultPod(object: KubeObject): KubeObject {
  const o = object as KubeObject & Obj;
  const spec = defaultRequests(defaultPodOnly(defaultPodSpec(obj(o.spec))));
  return { ...o, metadata: { ...o.metadata, generation: 1 }, spec, status: { phase: "Pending", qosClass: qosClass(spec) } };
}

/** A pod as updated: its spec defaults. */
export function defaultPodUpdate(object: KubeObject): KubeObject {
  const o = object as KubeObject & Obj;
  return { ...o, spec: defaultRequests(defaultPodOnly(defaultPodSpec(obj(o.spec)))) };
}

/** A namespace as created: its name label, the `kubernetes` finalizer in spec, phase Active. */
export function defaultNamespace(object: KubeObject): KubeObject {
  const o = object as KubeObject & Obj;
  return { ...o, metadata: namespaceMetadata(o), spec: { finalizers: ["kubernetes"], ...obj(o.spec) }, status: { phase: "Active" } };
}

/** A namespace as updated: its name label. */
export function defaultNamespaceUpdate(object: KubeObject): KubeObject {
  return { ...object, metadata: namespaceMetadata(object) };
}

/** A Service as created: a ClusterIP allocated, the type's defaults, node ports for NodePort and LoadBalancer. */
export function defaultService(object: KubeObject, allocateIp: IpAllocator): KubeObject {
  const o = object as KubeObject & Obj;
  const spec = obj(o.spec);
  const type = typeof spec.type === "string" ? spec.type : "ClusterIP";
  const clusterIP = typeof spec.clusterIP === "string" && spec.clusterIP !== "" ? spec.clusterIP : allocateIp();
  // NodePort and LoadBalancer Services: a node port per port (30000-32767), externalTrafficPolicy; a LoadBalancer's node ports allocated by default.
  const external = type === "NodePort" || type === "LoadBalancer";
  const ports = list(spec.ports).map((p) => ({ protocol: "TCP", targetPort: p.port, ...(external && p.nodePort === undefined ? { nodePort: 30000 + Math.floor(Math.random() * 2768) } : {}), ...p }));
  return {
    ...o,
    spec: {
      sessionAffinity: "None",
      internalTrafficPolicy: "Cluster",
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      ...(external ? { externalTrafficPolicy: "Cluster" } : {}),
      ...(type === "LoadBalancer" ? { allocateLoadBalancerNodePorts: true } : {}),
      ...spec,
      type,
      clusterIP,
      clusterIPs: clusterIP === "None" ? ["None"] : [clusterIP],
      ports,
    },
    status: { loadBalancer: {} },
  };
}

/** A Deployment as created: one replica, rolling updates, its pod template defaulted, an empty status. */
export function defaultDeployment(object: KubeObject): KubeObject {
  const o = object as KubeObject & Obj;
  const spec = obj(o.spec);
  return {
    ...o,
    spec: {
      replicas: 1,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } },
      ...spec,
      template: defaultTemplate(spec.template),
    },
    status: {},
  };
}

/** A ReplicaSet as created: one replica, its pod template defaulted, no replicas yet. */
export function defaultReplicaSet(object: KubeObject): KubeObject {
  const o = object as KubeObject & Obj;
  const spec = obj(o.spec);
  return { ...o, spec: { replicas: 1, ...spec, template: defaultTemplate(spec.template) }, status: { replicas: 0 } };
}

/** A workload as updated: its pod template's defaults. */
export function withDefaultTemplate(object: KubeObject): KubeObject {
  const o = object as KubeObject & Obj;
  const spec = obj(o.spec);
  return { ...o, spec: { ...spec, template: defaultTemplate(spec.template) } };
}

/** A Secret as created: type Opaque unless given, `stringData` merged into `data`. */
export function defaultSecret(object: KubeObject): KubeObject {
  return { type: "Opaque", ...secretData(object as KubeObject & Obj) };
}

/** core/v1 Event: eventTime is a MicroTime (null when unset), reportingComponent/Instance plain strings, all encoded. */
export function defaultEvent(object: KubeObject): KubeObject {
  return { eventTime: null, reportingComponent: "", reportingInstance: "", ...object } as KubeObject;
}

/** The CRD strategy: conversion None by default; the status starts with no names accepted and the storage version stored. */
export function defaultCrd(object: KubeObject): KubeObject {
  const o = object as KubeObject & Obj;
  const spec = obj(o.spec);
  const stored = list(spec.versions).filter((v) => v.storage === true).map((v) => v.name);
  return { ...o, spec: { ...spec, conversion: { strategy: "None", ...obj(spec.conversion) } }, status: { acceptedNames: { kind: "", plural: "" }, conditions: null, storedVersions: stored } } as KubeObject;
}

/**
 * SetDefaults_Pod and the ServiceAccount admission plugin: pods (not templates) get
 * `enableServiceLinks` and their ServiceAccount (`default`, also in the deprecated
 * `serviceAccount`).
 */
function defaultPodOnly(spec: Obj): Obj {
  const account = typeof spec.serviceAccountName === "string" && spec.serviceAccountName !== "" ? spec.serviceAccountName : typeof spec.serviceAccount === "string" && spec.serviceAccount !== "" ? spec.serviceAccount : "default";
  return { enableServiceLinks: true, ...spec, serviceAccountName: account, serviceAccount: account };
}

/** Every namespace carries the immutable label `kubernetes.io/metadata.name` (NamespaceDefaultLabelName). */
function namespaceMetadata(o: KubeObject): KubeObject["metadata"] {
  return { ...o.metadata, labels: { ...o.metadata.labels, "kubernetes.io/metadata.name": o.metadata.name ?? "" } };
}

/** A Secret's `stringData` is write-only: merged into `data`, base64-encoded, on every write. */
export function secretData(o: KubeObject & Obj): KubeObject & Obj {
  if (o.stringData === undefined) return o;
  const { stringData, ...rest } = o;
  const encoded = Object.fromEntries(Object.entries(obj(stringData)).map(([k, v]) => [k, Buffer.from(String(v), "utf8").toString("base64")]));
  return { ...rest, data: { ...obj(o.data), ...encoded } } as KubeObject & Obj;
}

/**
 * Fields kube-apiserver encodes with `omitempty` and so never returns empty: an empty
 * map or list in metadata is dropped, and in the kind's `dataFields` (ConfigMap and
 * Secret data). Built-in kinds only: a custom resource keeps what it was given.
 */
export function dropEmpty(object: KubeObject, dataFields: readonly string[] = []): KubeObject {
  const o = { ...object, metadata: { ...object.metadata } } as KubeObject & Obj;
  const meta = o.metadata as Obj;
  for (const field of ["labels", "annotations", "finalizers", "ownerReferences"]) if (isEmpty(meta[field])) delete meta[field];
  for (const field of dataFields) if (isEmpty(o[field])) delete o[field];
  return o;
}

function isEmpty(value: unknown): boolean {
  return (Array.isArray(value) && value.length === 0) || (typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0);
}

/** A load balancer ingress with an `ip` says how it is reached: `ipMode` defaults to VIP. */
export function withIpMode(o: KubeObject & Obj): KubeObject & Obj {
  const status = obj(o.status);
  const ingress = list(obj(status.loadBalancer).ingress);
  if (ingress.length === 0) return o;
  return { ...o, status: { ...status, loadBalancer: { ...obj(status.loadBalancer), ingress: ingress.map((i) => (typeof i.ip === "string" ? { ipMode: "VIP", ...i } : i)) } } };
}
