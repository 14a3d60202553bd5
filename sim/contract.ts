import type { KubeObject, TypeRef } from "../protocol/index.ts";

/**
 * The in-process face of the simulated API server. Every call runs the same pipeline
 * as an HTTP request (defaulting, admission plugins and webhooks, validation, storage,
 * watch fan-out), so the built-in controllers see and cause exactly what kubectl would.
 * Failures throw `ApiError`.
 */
export interface Cluster {
  get(type: TypeRef, namespace: string | undefined, name: string): Promise<KubeObject>;
  /** Like `get`, but undefined instead of a 404. */
  find(type: TypeRef, namespace: string | undefined, name: string): Promise<KubeObject | undefined>;
  list(type: TypeRef, options?: ListOptions): Promise<ObjectList>;
  create(object: KubeObject): Promise<KubeObject>;
  /** PUT: the object as given (optimistic concurrency on metadata.resourceVersion when set). */
  update(object: KubeObject, options?: SubresourceOptions): Promise<KubeObject>;
  patch(type: TypeRef, namespace: string | undefined, name: string, patch: unknown, patchType: PatchType, options?: SubresourceOptions): Promise<KubeObject>;
  /** Returns the object as it was left (with deletionTimestamp when deletion is pending), or its last state when removed. */
  delete(type: TypeRef, namespace: string | undefined, name: string, options?: DeleteOptions): Promise<KubeObject>;
  /** POST pods/{name}/binding. */
  bind(namespace: string, podName: string, nodeName: string, podUid?: string): Promise<void>;
  /** Every change committed from now on, delivered synchronously after the commit, in resourceVersion order. `type` null means every kind. */
  watch(type: TypeRef | null, onEvent: (event: ClusterEvent) => void): () => void;
  /** Discovery: every resource served now, built-in and from CRDs, at its preferred version. */
  resources(): readonly ServedResource[];
}

/** One served resource, as discovery lists it. */
export interface ServedResource {
  /** The kind at its preferred version. */
  readonly type: TypeRef;
  /** "" for the core group. */
  readonly group: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

export type PatchType = "merge" | "json" | "strategic" | "apply";

export interface SubresourceOptions {
  /** `finalize`: a Namespace's `spec.finalizers` only (PUT namespaces/{name}/finalize). */
  readonly subresource?: "status" | "finalize";
  /**
   * Who writes, as admission webhooks are told (`userInfo.username`); the sim's admin when
   * absent. The built-in controllers name the user kube-controller-manager's would write as.
   */
  readonly user?: string;
}

export interface ListOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export interface ObjectList {
  readonly items: KubeObject[];
  readonly resourceVersion: string;
}

export interface DeleteOptions {
  readonly propagationPolicy?: "Background" | "Foreground" | "Orphan";
  readonly gracePeriodSeconds?: number;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
}

export interface ClusterEvent {
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  readonly object: KubeObject;
  /** The state before, for MODIFIED. */
  readonly oldObject?: KubeObject;
}

/** A Kubernetes `Status` failure, thrown by every `Cluster` method. */
export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details: Record<string, unknown> | undefined;
  constructor(code: number, reason: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  /** The `Status` object the HTTP layer answers with. */
  toStatus(): Record<string, unknown> {
    return {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: this.message,
      // Status.reason is omitempty: an error without one (a storage error kube-apiserver answers as a bare 500) carries none.
      ...(this.reason ? { reason: this.reason } : {}),
      ...(this.details ? { details: withoutEmpty(this.details) } : {}),
      code: this.code,
    };
  }
}

/**
 * StatusDetails as kube-apiserver encodes them: `name`, `group`, `kind` and `uid` are
 * `omitempty`, so a core kind's details carry no `"group": ""`.
 */
function withoutEmpty(details: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(details).filter(([key, value]) => !(["name", "group", "kind", "uid"].includes(key) && value === "")));
}

/** A built-in controller of the sim (GC, Deployment, scheduler, kubelet, ...). */
export interface SimController {
  readonly name: string;
  start(cluster: Cluster): void;
  stop(): Promise<void>;
}

/**
 * A built-in controller that can be held, as a stopped kube-scheduler is: paused, it acts
 * on nothing (what it would have handled waits); resumed, it handles all of that.
 */
export interface PausableController extends SimController {
  pause(): void;
  resume(): void;
}

/** Options of the built-in controllers, parsed once by the sim's entry point. */
export interface SimControllerOptions {
  /** Seconds without heartbeat before a node goes Ready=Unknown (default 40). */
  readonly nodeGraceSeconds: number;
  /** How often nodes heartbeat, in seconds (default 10). */
  readonly heartbeatSeconds: number;
  /** Nodes created at start: a count (`sim-node-1` ...) or their names. */
  readonly nodes: number | readonly string[];
  /** `nvidia.com/gpu` capacity and allocatable of every node created at start (0 or absent: none). */
  readonly nodeGpus?: number;
}
