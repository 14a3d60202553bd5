/**
 * The simulated API server's storage pipeline, as a thin orchestrator: a write is decoded
 * (decode.ts), its draft prepared (update.ts), run through the admission chain of its
 * operation (admission/chain.ts: defaulting, the built-in plugins, webhooks, validation),
 * then stored with optimistic concurrency, generation, finalizers and graceful deletion
 * (deletion.ts). What differs per kind is the kind's entry (kinds/registry.ts). The HTTP
 * layer and the built-in controllers both call it, so they see and cause exactly the
 * same things.
 */
import type { KubeObject, TypeRef } from "../../protocol/index.ts";
import { versionOf } from "../../protocol/kube/api-version.ts";
import { generatedName } from "../../protocol/kube/names.ts";
import { matchesFieldRequirements, matchesLabelRequirements, parseFieldSelector, parseLabelSelector, SelectorError } from "../../protocol/kube/selectors.ts";
import { ApiError, type Cluster, type ClusterEvent, type DeleteOptions, type ListOptions, type ObjectList, type PatchType, type ServedResource, type SubresourceOptions } from "../contract.ts";
import { jsonPatch, PatchError } from "../patch/json.ts";
import { applyMergePatch, type Json } from "../patch/merge.ts";
import { strategicMergePatch } from "../patch/strategic.ts";
import { alreadyExists, badRequest, conflict, notFound } from "../pipeline/errors.ts";
import { PRIORITY_CLASSES, systemPriorityClasses } from "../pipeline/priority.ts";
import { DEFAULT_TOLERATION_SECONDS } from "../pipeline/tolerations.ts";
import type { FieldValidation } from "../pipeline/unknown-fields.ts";
import { Registry, objectApiVersion } from "../registry/registry.ts";
import { storageKey, type ResourceType } from "../registry/resource.ts";
import { Store, type Stored, type StoreEvent } from "../store/store.ts";
import { CREATE, DELETE, UPDATE } from "./admission/chain.ts";
import { admit, admitDelete } from "./admission/step.ts";
import type { ServiceResolver } from "./admission/webhooks.ts";
import { decode, decodePatched, typedApply } from "./decode.ts";
import { deletion, removedByUpdate } from "./deletion.ts";
import type { Kind } from "./kinds/kind.ts";
import { bind } from "./kinds/pods.ts";
import { BUILTIN_KINDS, kindOf } from "./kinds/registry.ts";
import { kubernetesService } from "./kubernetes-service.ts";
import { asObj, objectShapeProblem, sameContent, specOf, timestamp } from "./objects.ts";
import { updateDraft } from "./update.ts";
import type { Server, Write } from "./write.ts";

/** Options of the in-process cluster. */
export interface SimClusterOptions {
  /** Events kept for watches resuming from a resourceVersion (older → 410 Gone). Default 10,000. */
  readonly historySize?: number;
  /** How `service` webhook clientConfigs are reached (the sim has no cluster network). */
  readonly resolveService?: ServiceResolver;
  /** The clock (tests). */
  readonly now?: () => Date;
  /** Warnings of in-process writes (unknown fields dropped): the built-in controllers should cause none. */
  readonly onWarning?: (message: string) => void;
  /** kube-apiserver's `--default-not-ready-toleration-seconds`: what DefaultTolerationSeconds gives pods (default 300). */
  readonly defaultNotReadyTolerationSeconds?: number;
  /** kube-apiserver's `--default-unreachable-toleration-seconds` (default 300). */
  readonly defaultUnreachableTolerationSeconds?: number;
}

/** Per-call options the HTTP layer passes through. */
export interface WriteOptions extends SubresourceOptions {
  readonly dryRun?: boolean;
  /** What unknown fields cause (the `fieldValidation` parameter); Warn when absent, as upstream. */
  readonly fieldValidation?: FieldValidation;
  /** Where this request's warnings go (the HTTP layer's `Warning` headers); `onWarning` when absent. */
  readonly warn?: (message: string) => void;
}

const INITIAL_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];

/** The in-process Kubernetes API. */
export class SimCluster implements Cluster {
  readonly store: Store;
  readonly registry = new Registry(BUILTIN_KINDS.map((kind) => kind.resource));
  /** What the admission steps and the kinds' hooks read and call. */
  readonly #server: Server;
  readonly #now: () => Date;
  readonly #onWarning: ((message: string) => void) | undefined;
  #ipCounter = 0;

  constructor(options: SimClusterOptions = {}) {
    this.store = new Store(options.historySize ?? 10_000);
    this.#now = options.now ?? ((): Date => new Date());
    this.#onWarning = options.onWarning;
    this.#server = {
      store: this.store,
      registry: this.registry,
      now: this.#now,
      allocateIp: () => this.#allocateIp(),
      resolveService: options.resolveService,
      defaultTolerations: { notReadySeconds: options.defaultNotReadyTolerationSeconds ?? DEFAULT_TOLERATION_SECONDS, unreachableSeconds: options.defaultUnreachableTolerationSeconds ?? DEFAULT_TOLERATION_SECONDS },
    };
    for (const name of INITIAL_NAMESPACES) {
      this.store.commit("/namespaces", "ADDED", this.#stamp({ apiVersion: "v1", kind: "Namespace", metadata: { name, labels: { "kubernetes.io/metadata.name": name } }, spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } }));
    }
    this.store.commit("/services", "ADDED", this.#stamp(kubernetesService()));
    this.ensureSystemPriorityClasses();
  }

  /**
   * Creates the system PriorityClasses that are missing, as kube-apiserver's post-start
   * hook does on every start (a cluster restored from disk may predate them).
   */
  ensureSystemPriorityClasses(): void {
    for (const pc of systemPriorityClasses()) {
      if (!this.store.get(PRIORITY_CLASSES, undefined, pc.metadata.name ?? "")) this.store.commit(PRIORITY_CLASSES, "ADDED", this.#stamp(pc));
    }
  }

  // ---- lookups -------------------------------------------------------------------

  /** The served resource of a kind; 404 when nothing serves it. */
  resourceOf(type: TypeRef): ResourceType {
    // A TypeRef from a request body may hold anything.
    if (typeof type.apiVersion !== "string" || typeof type.kind !== "string") throw badRequest(objectShapeProblem(type) ?? "apiVersion and kind must be strings");
    const resource = this.registry.byKind(type.apiVersion, type.kind);
    if (!resource) throw new ApiError(404, "NotFound", `the server could not find the requested resource (no kind "${type.kind}" is registered for version "${type.apiVersion}")`);
    return resource;
  }

  /** The stored state of one object, if any. */
  stored(resource: ResourceType, namespace: string | undefined, name: string): Stored | undefined {
    return this.store.get(storageKey(resource), resource.namespaced ? namespace : undefined, name);
  }

  async get(type: TypeRef, namespace: string | undefined, name: string): Promise<KubeObject> {
    const resource = this.resourceOf(type);
    const stored = this.stored(resource, namespace, name);
    if (!stored) throw notFound(resource, name);
    return this.#served(resource, stored.object, type.apiVersion);
  }

  async find(type: TypeRef, namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
    const resource = this.resourceOf(type);
    const stored = this.stored(resource, namespace, name);
    return stored ? this.#served(resource, stored.object, type.apiVersion) : undefined;
  }

  /** Stored objects matching the options (the HTTP layer serialises `json` directly). */
  select(resource: ResourceType, options: ListOptions = {}): Stored[] {
    let labels, fields;
    try {
      labels = parseLabelSelector(options.labelSelector);
      fields = parseFieldSelector(options.fieldSelector, resource.fieldLabels);
    } catch (error) {
      if (error instanceof SelectorError) throw badRequest(error.message);
      throw error;
    }
    const all = this.store.list(storageKey(resource), resource.namespaced ? options.namespace : undefined);
    if (labels.length === 0 && fields.length === 0) return all;
    return all.filter((s) => matchesLabelRequirements(s.object.metadata.labels, labels) && matchesFieldRequirements(s.object, fields));
  }

  async list(type: TypeRef, options: ListOptions = {}): Promise<ObjectList> {
    const resource = this.resourceOf(type);
    const items = this.select(resource, options).map((s) => this.#served(resource, s.object, type.apiVersion));
    return { items, resourceVersion: String(this.store.resourceVersion) };
  }

  resources(): ServedResource[] {
    return this.registry.all().map((r) => ({ type: { apiVersion: objectApiVersion(r), kind: r.kind }, group: r.group, plural: r.plural, namespaced: r.namespaced }));
  }

  watch(type: TypeRef | null, onEvent: (event: ClusterEvent) => void): () => void {
    const resource = type ? this.resourceOf(type) : undefined;
    const key = resource ? storageKey(resource) : undefined;
    return this.store.subscribe((event: StoreEvent) => {
      if (key !== undefined && event.resource !== key) return;
      onEvent({ type: event.type, object: event.stored.object, ...(event.previous ? { oldObject: event.previous.object } : {}) });
    });
  }

  // ---- writes --------------------------------------------------------------------

  async create(input: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const resource = this.resourceOf(input);
    const kind = kindOf(resource);
    const object = decode(kind, resource, input, options, options.warn ?? this.#onWarning);
    const namespace = resource.namespaced ? (object.metadata.namespace ?? "default") : undefined;
    let name = object.metadata.name ?? "";
    // Names are generated as upstream: at most 58 characters of the prefix, then 5 random ones.
    if (!name && object.metadata.generateName) name = generatedName(object.metadata.generateName);
    const { resourceVersion: _rv, uid: _uid, deletionTimestamp: _dt, deletionGracePeriodSeconds: _dg, generation: _g, creationTimestamp: _ct, ...meta } = object.metadata;
    const draft: KubeObject = { ...object, metadata: { ...meta, name, ...(namespace ? { namespace } : {}) } };
    const write = this.#write(resource, kind, object.apiVersion, options, { operation: "CREATE", namespace, name, body: object, oldObject: null, uid: crypto.randomUUID() });
    const admitted = kind.canonicalize(await admit(CREATE, draft, write));
    if (this.stored(resource, namespace, name)) throw alreadyExists(resource, name);
    const final: KubeObject = {
      ...admitted,
      metadata: { ...admitted.metadata, uid: write.uid, creationTimestamp: timestamp(this.#now()), ...(resource.generation ? { generation: 1 } : {}) },
    };
    if (options.dryRun) return this.#served(resource, this.#stamp(final), object.apiVersion);
    const stored = this.store.commit(storageKey(resource), "ADDED", final);
    kind.committed?.("ADDED", stored.object, this.#server);
    return this.#served(resource, stored.object, object.apiVersion);
  }

  async update(input: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const resource = this.resourceOf(input);
    const kind = kindOf(resource);
    const object = decode(kind, resource, input, options, options.warn ?? this.#onWarning);
    const namespace = resource.namespaced ? (object.metadata.namespace ?? "default") : undefined;
    const name = object.metadata.name ?? "";
    const current = this.stored(resource, namespace, name);
    if (!current) throw notFound(resource, name);
    const wanted = object.metadata.resourceVersion;
    if (wanted !== undefined && wanted !== "" && wanted !== current.object.metadata.resourceVersion) throw conflict(resource, name);
    return this.#replace(resource, kind, current.object, object, options);
  }

  async patch(type: TypeRef, namespace: string | undefined, name: string, patch: unknown, patchType: PatchType, options: WriteOptions = {}): Promise<KubeObject> {
    const resource = this.resourceOf(type);
    const ns = resource.namespaced ? (namespace ?? "default") : undefined;
    const current = this.stored(resource, ns, name);
    if (!current) {
      const problem = patchType === "apply" ? objectShapeProblem(patch) : undefined;
      if (problem) throw badRequest(problem);
      if (patchType === "apply") return this.create(typedApply(resource, { ...(patch as KubeObject), metadata: { ...asObj(asObj(patch).metadata), name, ...(ns ? { namespace: ns } : {}) } } as KubeObject), options);
      throw notFound(resource, name);
    }
    const kind = kindOf(resource);
    const base = this.#served(resource, current.object, type.apiVersion);
    const patched = decodePatched(kind, resource, base, applyPatch(base, patch, patchType), patch, patchType, options, options.warn ?? this.#onWarning);
    const wanted = asObj(asObj(patch).metadata).resourceVersion;
    if (patchType !== "json" && typeof wanted === "string" && wanted !== current.object.metadata.resourceVersion) throw conflict(resource, name);
    return this.#replace(resource, kind, current.object, patched, options);
  }

  async delete(type: TypeRef, namespace: string | undefined, name: string, options: DeleteOptions & WriteOptions = {}): Promise<KubeObject> {
    const resource = this.resourceOf(type);
    const ns = resource.namespaced ? (namespace ?? "default") : undefined;
    const current = this.stored(resource, ns, name);
    if (!current) throw notFound(resource, name);
    const kind = kindOf(resource);
    const object = current.object;
    const write = this.#write(resource, kind, type.apiVersion, options, { operation: "DELETE", namespace: ns, name, body: null, oldObject: object, preconditions: options.preconditions });
    await admitDelete(DELETE, write);
    if (options.dryRun) return this.#served(resource, object, type.apiVersion);
    const outcome = deletion(kind, object, options, this.#now);
    if (outcome.type === "NONE") return this.#served(resource, outcome.object, type.apiVersion);
    const stored = this.store.commit(storageKey(resource), outcome.type, outcome.object).object;
    kind.committed?.(outcome.type, stored, this.#server);
    return this.#served(resource, stored, type.apiVersion);
  }

  async bind(namespace: string, podName: string, nodeName: string, podUid?: string): Promise<void> {
    const resource = this.resourceOf({ apiVersion: "v1", kind: "Pod" });
    const current = this.stored(resource, namespace, podName);
    if (!current) throw notFound(resource, podName);
    this.store.commit(storageKey(resource), "MODIFIED", bind(current.object, nodeName, podUid, this.#now));
  }

  // ---- pipeline ------------------------------------------------------------------

  /** Update/patch: the draft, admission, generation, no-op detection, the end of a deletion. */
  async #replace(resource: ResourceType, kind: Kind, current: KubeObject, incoming: KubeObject, options: WriteOptions): Promise<KubeObject> {
    const name = current.metadata.name ?? "";
    if (incoming.metadata.name !== undefined && incoming.metadata.name !== name) {
      throw badRequest(`the name of the object (${incoming.metadata.name}) does not match the name on the URL (${name})`);
    }
    const subresource = options.subresource ?? "";
    const draft = updateDraft(kind, resource, current, incoming, subresource);
    // Webhooks are told the stored object's version; a custom resource is checked with the schema of the version written.
    const write = this.#write(resource, kind, incoming.apiVersion || current.apiVersion, options, {
      operation: "UPDATE",
      version: versionOf(current.apiVersion),
      subresource,
      namespace: current.metadata.namespace,
      name,
      body: incoming,
      oldObject: current,
    });
    const admitted = kind.canonicalize(await admit(UPDATE, draft, write));
    if (subresource !== "status" && current.metadata.generation !== undefined && specOf(admitted) !== specOf(current)) {
      admitted.metadata = { ...admitted.metadata, generation: current.metadata.generation + 1 };
    }
    if (sameContent(admitted, current)) return current;
    // A dry run answers what would be stored: the current resourceVersion (a write would bump it).
    if (options.dryRun) return { ...admitted, metadata: { ...admitted.metadata, resourceVersion: current.metadata.resourceVersion } };
    const type = removedByUpdate(kind, admitted) ? "DELETED" : "MODIFIED";
    const stored = this.store.commit(storageKey(resource), type, admitted).object;
    kind.committed?.(type, stored, this.#server);
    return stored;
  }

  /** The write the admission steps and the kinds' hooks are given: at `apiVersion` (the version webhooks are told, unless `request` says another). */
  #write(resource: ResourceType, kind: Kind, apiVersion: string, options: WriteOptions, request: Pick<Write, "operation" | "namespace" | "name" | "body" | "oldObject"> & Partial<Write>): Write {
    return { resource, kind, version: versionOf(apiVersion), apiVersion, subresource: "", uid: "", dryRun: options.dryRun ?? false, server: this.#server, ...(options.user ? { user: options.user } : {}), ...request };
  }

  /** The object as served at `apiVersion` (CRDs serve one schema at several versions). */
  #served(resource: ResourceType, object: KubeObject, apiVersion: string): KubeObject {
    return object.apiVersion === apiVersion || !resource.versions.includes(versionOf(apiVersion)) ? object : { ...object, apiVersion: objectApiVersion(resource, versionOf(apiVersion)) };
  }

  #stamp(object: KubeObject): KubeObject {
    return { ...object, metadata: { uid: crypto.randomUUID(), creationTimestamp: timestamp(this.#now()), ...object.metadata } };
  }

  #allocateIp(): string {
    this.#ipCounter += 1;
    return `10.96.${Math.floor(this.#ipCounter / 250)}.${(this.#ipCounter % 250) + 1}`;
  }
}

/** `patch` applied to `base` as its type says; a JSON patch that cannot apply is a 422. */
function applyPatch(base: KubeObject, patch: unknown, patchType: PatchType): KubeObject {
  try {
    const next: Json = patchType === "json" ? jsonPatch(base, patch) : patchType === "strategic" ? strategicMergePatch(base, patch) : applyMergePatch(base, patch);
    return next as unknown as KubeObject;
  } catch (error) {
    // kube-apiserver v1.36 says no more than this of a JSON patch that cannot apply (a failed `test`, a missing path).
    if (error instanceof PatchError) throw new ApiError(422, "Invalid", "the server rejected our request due to an error in our request", {});
    throw error;
  }
}
