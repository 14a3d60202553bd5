import type { KubeObject } from "../../protocol/index.ts";
import type { ResourceType } from "../registry/resource.ts";
import { defaultJob } from "./job.ts";
import { defaultPriorityClass } from "./priority.ts";

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

function defaultTemplate(template: unknown): Obj {
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

/**
 * Defaulting on create, per kind, as the built-in strategies do (status reset for kinds
 * with a status subresource, spec defaults). `uid` is the one the object will get (a
 * Job's generated selector names it). Returns a new object.
 */
export function defaultOnCreate(type: ResourceType, object: KubeObject, allocateIp: IpAllocator, uid = ""): KubeObject {
  const o = object as KubeObject & Obj;
  const key = `${type.group}/${type.plural}`;
  switch (key) {
    case "/pods": {
      const spec = defaultRequests(defaultPodOnly(defaultPodSpec(obj(o.spec))));
      return { ...o, metadata: { ...o.metadata, generation: 1 }, spec, status: { phase: "Pending", qosClass: qosClass(spec) } };
    }
    case "/namespaces":
      return { ...o, metadata: namespaceMetadata(o), spec: { finalizers: ["kubernetes"], ...obj(o.spec) }, status: { phase: "Active" } };
    case "/services": {
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
    case "apps/deployments": {
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
    case "apps/replicasets": {
      const spec = obj(o.spec);
      return { ...o, spec: { replicas: 1, ...spec, template: defaultTemplate(spec.template) }, status: { replicas: 0 } };
    }
    case "batch/jobs":
      return defaultJob(o, defaultTemplate(obj(o.spec).template), uid);
    case "/secrets":
      return { type: "Opaque", ...secretData(o) };
    case "/nodes":
      return o;
    case "/events":
      // core/v1 Event: eventTime is a MicroTime (null when unset), reportingComponent/Instance plain strings, all encoded.
      return { eventTime: null, reportingComponent: "", reportingInstance: "", ...o } as KubeObject;
    case "scheduling.k8s.io/priorityclasses":
      return defaultPriorityClass(o);
    case "apiextensions.k8s.io/customresourcedefinitions": {
      // The CRD strategy: conversion None by default; the status starts with no names accepted and the storage version stored.
      const spec = obj(o.spec);
      const stored = list(spec.versions).filter((v) => v.storage === true).map((v) => v.name);
      return { ...o, spec: { ...spec, conversion: { strategy: "None", ...obj(spec.conversion) } }, status: { acceptedNames: { kind: "", plural: "" }, conditions: null, storedVersions: stored } } as KubeObject;
    }
    default: {
      if (type.statusSubresource) {
        const copy: Obj = { ...o };
        delete copy.status;
        return copy as KubeObject;
      }
      return o;
    }
  }
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
function secretData(o: KubeObject & Obj): KubeObject & Obj {
  if (o.stringData === undefined) return o;
  const { stringData, ...rest } = o;
  const encoded = Object.fromEntries(Object.entries(obj(stringData)).map(([k, v]) => [k, Buffer.from(String(v), "utf8").toString("base64")]));
  return { ...rest, data: { ...obj(o.data), ...encoded } } as KubeObject & Obj;
}

/**
 * Defaulting on every update and patch (kube-apiserver defaults whatever it decodes):
 * the spec defaults of `defaultOnCreate` that a write may have removed or never had
 * (a container added by a patch), without its status resets or allocations.
 */
export function defaultOnUpdate(type: ResourceType, object: KubeObject): KubeObject {
  const o = object as KubeObject & Obj;
  switch (`${type.group}/${type.plural}`) {
    case "/pods":
      return { ...o, spec: defaultRequests(defaultPodOnly(defaultPodSpec(obj(o.spec)))) };
    case "/namespaces":
      return { ...o, metadata: namespaceMetadata(o) };
    case "/secrets":
      return secretData(o);
    case "/services":
      return withIpMode(o);
    case "apps/deployments":
    case "apps/replicasets": {
      const spec = obj(o.spec);
      return { ...o, spec: { ...spec, template: defaultTemplate(spec.template) } };
    }
    default:
      return o;
  }
}

/**
 * Fields kube-apiserver encodes with `omitempty` and so never returns empty: an empty
 * map or list there is dropped (built-in kinds only; a custom resource keeps what it was given).
 */
export function dropEmpty(type: ResourceType, object: KubeObject): KubeObject {
  if (type.crd) return object;
  const o = { ...object, metadata: { ...object.metadata } } as KubeObject & Obj;
  const meta = o.metadata as Obj;
  for (const field of ["labels", "annotations", "finalizers", "ownerReferences"]) if (isEmpty(meta[field])) delete meta[field];
  if (type.group === "" && (type.plural === "configmaps" || type.plural === "secrets")) for (const field of ["data", "binaryData"]) if (isEmpty(o[field])) delete o[field];
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
