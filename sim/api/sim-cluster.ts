/**
 * The simulated API server's storage pipeline: defaulting, admission (built-in plugins
 * and webhooks), validation, optimistic concurrency, generation, finalizers, graceful
 * deletion, CRD serving. The HTTP layer and the built-in controllers both call it, so
 * they see and cause exactly the same things.
 */
import type { KubeObject, TypeRef } from "../../protocol/index.ts";
import { splitApiVersion } from "../../protocol/kube/api-version.ts";
import { matchesFieldRequirements, matchesLabelRequirements, parseFieldSelector, parseLabelSelector, SelectorError } from "../../protocol/kube/selectors.ts";
import { ApiError, type Cluster, type ClusterEvent, type DeleteOptions, type ListOptions, type ObjectList, type PatchType, type ServedResource, type SubresourceOptions } from "../contract.ts";
import { checkCrd, establishedStatus, resourceOfCrd } from "../crd/serving.ts";
import { applyDefaults, prune, validate as validateSchema, type Schema } from "../crd/schema.ts";
import { jsonPatch, PatchError } from "../patch/json.ts";
import { applyMergePatch, type Json } from "../patch/merge.ts";
import { strategicMergePatch } from "../patch/strategic.ts";
import { defaultOnCreate, defaultOnUpdate, dropEmpty } from "../pipeline/defaults.ts";
import { alreadyExists, badRequest, conflict, invalid, notFound, type Cause } from "../pipeline/errors.ts";
import { jobCauses } from "../pipeline/job.ts";
import { admitPodPriority, checkPriorityClassTypes, defaultPriorityClass, globalDefaultConflict, isPriorityClass, keepPodPriority, PRIORITY_CLASSES, priorityClassCauses, systemClassDeletion, systemPriorityClasses } from "../pipeline/priority.ts";
import { DEFAULT_TOLERATION_SECONDS, defaultTolerationSeconds, type DefaultTolerations } from "../pipeline/tolerations.ts";
import { dropUnknownFields, goFormat, introduced, strictDecodingError, strictPatchError, undeclaredFieldError, unknownFieldMessage, type FieldValidation } from "../pipeline/unknown-fields.ts";
import { validateObject } from "../pipeline/validation.ts";
import { Registry, objectApiVersion } from "../registry/registry.ts";
import { storageKey, type ResourceType } from "../registry/resource.ts";
import { Store, type Stored, type StoreEvent } from "../store/store.ts";
import { mutate, validate as validateWebhooks, webhooksOf, type AdmissionAttributes, type ServiceResolver } from "./admission.ts";
import { kubernetesService } from "./kubernetes-service.ts";
import { finalizeDraft, immortalError, IMMORTAL_NAMESPACES, isNamespace, keepSpecFinalizers, markTerminating, specFinalizers, terminating, terminatingError, withKubernetesFinalizer } from "./namespaces.ts";
import { asObj, objectShapeProblem, randomSuffix, sameContent, specOf, timestamp, type Obj } from "./objects.ts";

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

const WEBHOOK_RESOURCES = ["admissionregistration.k8s.io/mutatingwebhookconfigurations", "admissionregistration.k8s.io/validatingwebhookconfigurations"];
const INITIAL_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];

/** The in-process Kubernetes API. */
export class SimCluster implements Cluster {
  readonly store: Store;
  readonly registry = new Registry();
  readonly #resolveService: ServiceResolver | undefined;
  readonly #now: () => Date;
  readonly #onWarning: ((message: string) => void) | undefined;
  readonly #defaultTolerations: DefaultTolerations;
  #ipCounter = 0;

  constructor(options: SimClusterOptions = {}) {
    this.store = new Store(options.historySize ?? 10_000);
    this.#resolveService = options.resolveService;
    this.#now = options.now ?? ((): Date => new Date());
    this.#onWarning = options.onWarning;
    this.#defaultTolerations = { notReadySeconds: options.defaultNotReadyTolerationSeconds ?? DEFAULT_TOLERATION_SECONDS, unreachableSeconds: options.defaultUnreachableTolerationSeconds ?? DEFAULT_TOLERATION_SECONDS };
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
    const object = this.#decode(resource, input, options, (unknown) => strictDecodingError(resource.kind, input.apiVersion, unknown));
    const namespace = resource.namespaced ? (object.metadata.namespace ?? "default") : undefined;
    const nsLabels = namespace === undefined ? {} : this.#liveNamespace(namespace, true, resource, object);
    let name = object.metadata.name ?? "";
    // Names are generated as upstream: at most 58 characters of the prefix, then 5 random ones.
    if (!name && object.metadata.generateName) name = `${object.metadata.generateName.slice(0, 58)}${randomSuffix()}`;
    const { resourceVersion: _rv, uid: _uid, deletionTimestamp: _dt, deletionGracePeriodSeconds: _dg, generation: _g, creationTimestamp: _ct, ...meta } = object.metadata;
    let draft: KubeObject = { ...object, metadata: { ...meta, name, ...(namespace ? { namespace } : {}) } };
    const uid = crypto.randomUUID();
    draft = defaultOnCreate(resource, draft, () => this.#allocateIp(), uid);
    if (resource.kind === "Pod" && resource.group === "") {
      // The built-in admission plugins in kube-apiserver's order (Priority, then
      // DefaultTolerationSeconds), before the webhooks. The Priority plugin names a pod by its
      // generateName while the name is still to come.
      draft = admitPodPriority(draft, this.#priorityClasses(), object.metadata.name || object.metadata.generateName || name);
      draft = defaultTolerationSeconds(draft, this.#defaultTolerations);
    }
    if (isNamespace(resource)) draft = withKubernetesFinalizer(draft);
    draft = this.#customResource(resource, draft, object.apiVersion);
    const version = splitApiVersion(object.apiVersion).version;
    draft = await this.#admit({ operation: "CREATE", resource, version, subresource: "", namespace, name, object: draft, oldObject: null, nsLabels, dryRun: options.dryRun ?? false });
    draft = dropEmpty(resource, draft);
    this.#validate(resource, draft);
    if (isPriorityClass(resource)) this.#checkGlobalDefault(draft, "CREATE");
    if (this.stored(resource, namespace, name)) throw alreadyExists(resource, name);
    const final: KubeObject = {
      ...draft,
      metadata: {
        ...draft.metadata,
        uid,
        creationTimestamp: timestamp(this.#now()),
        ...(resource.generation || resource.crd ? { generation: 1 } : {}),
      },
    };
    if (options.dryRun) return this.#served(resource, this.#stamp(final), object.apiVersion);
    const stored = this.store.commit(storageKey(resource), "ADDED", final);
    this.#afterWrite(resource, undefined, stored.object);
    return this.#served(resource, stored.object, object.apiVersion);
  }

  async update(input: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const resource = this.resourceOf(input);
    const object = this.#decode(resource, input, options, (unknown) => strictDecodingError(resource.kind, input.apiVersion, unknown));
    const namespace = resource.namespaced ? (object.metadata.namespace ?? "default") : undefined;
    const name = object.metadata.name ?? "";
    const current = this.stored(resource, namespace, name);
    if (!current) throw notFound(resource, name);
    const wanted = object.metadata.resourceVersion;
    if (wanted !== undefined && wanted !== "" && wanted !== current.object.metadata.resourceVersion) throw conflict(resource, name);
    return this.#replace(resource, current.object, object, options);
  }

  async patch(type: TypeRef, namespace: string | undefined, name: string, patch: unknown, patchType: PatchType, options: WriteOptions = {}): Promise<KubeObject> {
    const resource = this.resourceOf(type);
    const ns = resource.namespaced ? (namespace ?? "default") : undefined;
    const current = this.stored(resource, ns, name);
    if (!current) {
      const problem = patchType === "apply" ? objectShapeProblem(patch) : undefined;
      if (problem) throw badRequest(problem);
      if (patchType === "apply") return this.create(this.#typedApply(resource, { ...(patch as KubeObject), metadata: { ...asObj(asObj(patch).metadata), name, ...(ns ? { namespace: ns } : {}) } } as KubeObject), options);
      throw notFound(resource, name);
    }
    const base = this.#served(resource, current.object, type.apiVersion);
    let next: Json;
    try {
      next = patchType === "json" ? jsonPatch(base, patch) : patchType === "strategic" ? strategicMergePatch(base, patch) : applyMergePatch(base, patch);
    } catch (error) {
      // kube-apiserver v1.36 says no more than this of a JSON patch that cannot apply (a failed `test`, a missing path).
      if (error instanceof PatchError) throw new ApiError(422, "Invalid", "the server rejected our request due to an error in our request", {});
      throw error;
    }
    const patched = this.#decodePatch(resource, base, next as unknown as KubeObject, patch, patchType, options);
    const wanted = asObj(asObj(patch).metadata).resourceVersion;
    if (patchType !== "json" && typeof wanted === "string" && wanted !== current.object.metadata.resourceVersion) throw conflict(resource, name);
    return this.#replace(resource, current.object, patched, options);
  }

  async delete(type: TypeRef, namespace: string | undefined, name: string, options: DeleteOptions & WriteOptions = {}): Promise<KubeObject> {
    const resource = this.resourceOf(type);
    const ns = resource.namespaced ? (namespace ?? "default") : undefined;
    const current = this.stored(resource, ns, name);
    if (!current) throw notFound(resource, name);
    if (isNamespace(resource) && IMMORTAL_NAMESPACES.includes(name)) throw immortalError(name);
    const system = isPriorityClass(resource) ? systemClassDeletion(name) : undefined;
    if (system) throw system;
    const object = current.object;
    const pre = options.preconditions;
    if (pre?.uid && pre.uid !== object.metadata.uid) {
      throw preconditionFailed(resource, name, `the UID in the precondition (${pre.uid}) does not match the UID in record (${object.metadata.uid ?? ""}). The object might have been deleted and then recreated`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== object.metadata.resourceVersion) {
      throw preconditionFailed(resource, name, `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${object.metadata.resourceVersion ?? ""}). The object might have been modified`);
    }
    const version = splitApiVersion(type.apiVersion).version;
    const nsLabels = ns === undefined ? {} : this.#namespaceLabels(ns);
    await this.#admit({ operation: "DELETE", resource, version, subresource: "", namespace: ns, name, object: null, oldObject: object, nsLabels, dryRun: options.dryRun ?? false });
    if (options.dryRun) return this.#served(resource, object, type.apiVersion);
    const result = this.#delete(resource, object, options);
    return this.#served(resource, result, type.apiVersion);
  }

  async bind(namespace: string, podName: string, nodeName: string, podUid?: string): Promise<void> {
    const resource = this.resourceOf({ apiVersion: "v1", kind: "Pod" });
    const current = this.stored(resource, namespace, podName);
    if (!current) throw notFound(resource, podName);
    const pod = current.object as KubeObject & Obj;
    if (podUid && podUid !== pod.metadata.uid) throw conflict(resource, podName, `Precondition failed: UID in precondition: ${podUid}, UID in object meta: ${pod.metadata.uid ?? ""}`);
    const spec = asObj(pod.spec);
    // BindingREST wraps these refusals as a Conflict on pods/binding (the UID precondition is the store's, on pods).
    const binding = { group: "", plural: "pods/binding", kind: "Binding" };
    if (pod.metadata.deletionTimestamp) throw conflict(binding, podName, `pod ${podName} is being deleted, cannot be assigned to a host`);
    if (spec.nodeName) throw conflict(binding, podName, `pod ${podName} is already assigned to node "${String(spec.nodeName)}"`);
    const status = asObj(pod.status);
    const conditions = ((status.conditions as Obj[] | undefined) ?? []).filter((c) => c.type !== "PodScheduled");
    const bound = { ...pod, spec: { ...spec, nodeName }, status: { ...status, conditions: [...conditions, { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: timestamp(this.#now()) }] } };
    this.store.commit(storageKey(resource), "MODIFIED", bound);
  }

  // ---- pipeline ------------------------------------------------------------------

  /**
   * Decoding: the fields the kind does not declare are dropped, and reported as the
   * request's fieldValidation asks (Warn when absent): warnings, or `strictError` for
   * Strict. `before` gives the unknown fields the object already had (a patch reports only
   * what it brought in); `typed` refuses any (server-side apply).
   */
  #decode(resource: ResourceType, object: KubeObject, options: WriteOptions, strictError: (unknown: readonly string[]) => ApiError, before?: () => readonly string[], typed = false): KubeObject {
    // What a body or a patch made may be anything: refuse a non-object before reading it.
    const problem = objectShapeProblem(object);
    if (problem) throw badRequest(problem);
    const decoded = dropUnknownFields(resource, kept(object, options), object.apiVersion);
    if (isPriorityClass(resource)) checkPriorityClassTypes(decoded.object);
    if (decoded.unknown.length === 0) return decoded.object;
    const unknown = before ? introduced(decoded.unknown, before()) : decoded.unknown;
    if (unknown.length === 0) return decoded.object;
    const mode = options.fieldValidation ?? "Warn";
    if (typed || mode === "Strict") throw strictError(unknown);
    const warn = options.warn ?? this.#onWarning;
    if (mode === "Warn" && warn) for (const path of unknown) warn(unknownFieldMessage(path));
    return decoded.object;
  }

  /** A patched object decoded: a strict failure shows the patch as upstream does (the patch map, or the patched object). */
  #decodePatch(resource: ResourceType, base: KubeObject, patched: KubeObject, patch: unknown, patchType: PatchType, options: WriteOptions): KubeObject {
    const strict = (unknown: readonly string[]): ApiError => (patchType === "apply" ? undeclaredFieldError(patched, unknown) : strictPatchError(patchType === "strategic" ? goFormat(patch) : JSON.stringify(patched), unknown));
    return this.#decode(resource, patched, options, strict, () => dropUnknownFields(resource, kept(base, options), base.apiVersion).unknown, patchType === "apply");
  }

  /** Server-side apply needs every field typed: an unknown one is refused whatever the fieldValidation. */
  #typedApply(resource: ResourceType, object: KubeObject): KubeObject {
    const { unknown } = dropUnknownFields(resource, object, object.apiVersion);
    if (unknown.length > 0) throw undeclaredFieldError(object, unknown);
    return object;
  }

  /** Update/patch: subresource rules, immutable metadata, generation, no-op detection, finalizers. */
  async #replace(resource: ResourceType, current: KubeObject, incoming: KubeObject, options: WriteOptions): Promise<KubeObject> {
    const name = current.metadata.name ?? "";
    const namespace = current.metadata.namespace;
    if (incoming.metadata.name !== undefined && incoming.metadata.name !== name) {
      throw badRequest(`the name of the object (${incoming.metadata.name}) does not match the name on the URL (${name})`);
    }
    const status = options.subresource === "status";
    let draft: KubeObject;
    if (status) {
      draft = defaultOnUpdate(resource, { ...current, status: (incoming as Obj).status } as KubeObject);
    } else if (options.subresource === "finalize") {
      draft = finalizeDraft(current, incoming);
    } else {
      draft = { ...incoming, apiVersion: current.apiVersion, kind: current.kind };
      if (resource.statusSubresource) (draft as Obj).status = (current as Obj).status;
      if ((draft as Obj).status === undefined) delete (draft as Obj).status;
      draft.metadata = {
        ...incoming.metadata,
        name,
        ...(namespace ? { namespace } : {}),
        uid: current.metadata.uid,
        creationTimestamp: current.metadata.creationTimestamp,
        ...(current.metadata.deletionTimestamp ? { deletionTimestamp: current.metadata.deletionTimestamp, deletionGracePeriodSeconds: current.metadata.deletionGracePeriodSeconds } : {}),
        ...(current.metadata.generation !== undefined ? { generation: current.metadata.generation } : {}),
      };
      if (!draft.metadata.deletionTimestamp) delete draft.metadata.deletionTimestamp;
      if (draft.metadata.deletionGracePeriodSeconds === undefined) delete draft.metadata.deletionGracePeriodSeconds;
      if (isNamespace(resource)) draft = keepSpecFinalizers(draft, current);
      if (resource.group === "" && resource.kind === "Pod") draft = defaultTolerationSeconds(keepPodPriority(draft, current), this.#defaultTolerations);
      draft = defaultOnUpdate(resource, draft);
      if (isPriorityClass(resource)) draft = defaultPriorityClass(draft);
      const added = current.metadata.deletionTimestamp ? (draft.metadata.finalizers ?? []).filter((f) => !(current.metadata.finalizers ?? []).includes(f)) : [];
      if (added.length > 0) {
        // Worded with Go's %#v of the new ones; kube-apiserver reports it twice (object meta and the store's update checks).
        const cause = { field: "metadata.finalizers", reason: "FieldValueForbidden", message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(", ")}}` } as const;
        throw invalid(resource.kind, resource.group, name, [cause, cause]);
      }
    }
    draft = this.#customResource(resource, draft, incoming.apiVersion || current.apiVersion);
    const version = splitApiVersion(current.apiVersion).version;
    const nsLabels = namespace === undefined ? {} : this.#namespaceLabels(namespace);
    draft = await this.#admit({ operation: "UPDATE", resource, version, subresource: options.subresource ?? "", namespace, name, object: draft, oldObject: current, nsLabels, dryRun: options.dryRun ?? false });
    draft = dropEmpty(resource, draft);
    this.#validate(resource, draft, current, options.subresource);
    if (isPriorityClass(resource) && !options.subresource) this.#checkGlobalDefault(draft, "UPDATE");
    if (!status && current.metadata.generation !== undefined && specOf(draft) !== specOf(current)) {
      draft.metadata = { ...draft.metadata, generation: current.metadata.generation + 1 };
    }
    if (sameContent(draft, current)) return current;
    // A dry run answers what would be stored: the current resourceVersion (a write would bump it).
    if (options.dryRun) return { ...draft, metadata: { ...draft.metadata, resourceVersion: current.metadata.resourceVersion } };
    // A namespace goes once its spec.finalizers are emptied too (ShouldDeleteNamespaceDuringUpdate).
    if (draft.metadata.deletionTimestamp && (draft.metadata.finalizers ?? []).length === 0 && !this.#graceful(resource, draft) && !(isNamespace(resource) && specFinalizers(draft).length > 0)) {
      const removed = this.store.commit(storageKey(resource), "DELETED", draft);
      this.#afterDelete(resource, removed.object);
      return removed.object;
    }
    const stored = this.store.commit(storageKey(resource), "MODIFIED", draft);
    this.#afterWrite(resource, current, stored.object);
    return stored.object;
  }

  /** A pod on a node terminates through its kubelet; everything else goes at once. */
  #graceful(resource: ResourceType, object: KubeObject): boolean {
    return resource.group === "" && resource.kind === "Pod" && (object.metadata.deletionGracePeriodSeconds ?? 0) > 0 && Boolean(asObj((object as Obj).spec).nodeName);
  }

  /** A namespace's first delete only starts its termination; later ones wait for its spec.finalizers. */
  #deleteNamespace(resource: ResourceType, object: KubeObject, options: DeleteOptions): KubeObject | undefined {
    if (object.metadata.deletionTimestamp) return specFinalizers(object).length > 0 ? object : undefined;
    const stored = this.store.commit(storageKey(resource), "MODIFIED", markTerminating(object, this.#now(), options.propagationPolicy)).object;
    this.#afterWrite(resource, object, stored);
    return stored;
  }

  #delete(resource: ResourceType, object: KubeObject, options: DeleteOptions): KubeObject {
    const namespace = isNamespace(resource) ? this.#deleteNamespace(resource, object, options) : undefined;
    if (namespace) return namespace;
    const key = storageKey(resource);
    const isPod = resource.group === "" && resource.kind === "Pod";
    const grace = isPod ? (options.gracePeriodSeconds ?? (asObj((object as Obj).spec).terminationGracePeriodSeconds as number | undefined) ?? 30) : 0;
    if (object.metadata.deletionTimestamp) {
      // Already terminating: a shorter grace period may still cut it short (force delete).
      const shorter = isPod && options.gracePeriodSeconds !== undefined && options.gracePeriodSeconds < (object.metadata.deletionGracePeriodSeconds ?? 0);
      if (!shorter) return object;
      const updated = { ...object, metadata: { ...object.metadata, deletionGracePeriodSeconds: options.gracePeriodSeconds } };
      if ((object.metadata.finalizers ?? []).length === 0 && options.gracePeriodSeconds === 0) {
        const removed = this.store.commit(key, "DELETED", updated).object;
        this.#afterDelete(resource, removed);
        return removed;
      }
      return this.store.commit(key, "MODIFIED", updated).object;
    }
    // batch/v1 Jobs orphan their pods unless told otherwise (the job strategy's DefaultGarbageCollectionPolicy); kubectl always says.
    const policy = options.propagationPolicy ?? (storageKey(resource) === "batch/jobs" ? "Orphan" : undefined);
    const finalizers = [...(object.metadata.finalizers ?? [])];
    if (policy === "Foreground" && !finalizers.includes("foregroundDeletion")) finalizers.push("foregroundDeletion");
    if (policy === "Orphan" && !finalizers.includes("orphan")) finalizers.push("orphan");
    const graceful = isPod && grace > 0 && Boolean(asObj((object as Obj).spec).nodeName);
    if (finalizers.length === 0 && !graceful) {
      // A bound pod deleted with gracePeriodSeconds=0 is marked (deletionTimestamp, grace 0, generation bumped) in the same write that removes it, as the registry's graceful path does.
      const forced = isPod && Boolean(asObj((object as Obj).spec).nodeName) && options.gracePeriodSeconds === 0;
      const last = forced ? { ...object, metadata: { ...object.metadata, deletionTimestamp: timestamp(this.#now()), deletionGracePeriodSeconds: 0, ...(object.metadata.generation !== undefined ? { generation: object.metadata.generation + 1 } : {}) } } : object;
      const removed = this.store.commit(key, "DELETED", last).object;
      this.#afterDelete(resource, removed);
      return removed;
    }
    const now = this.#now();
    const marked: KubeObject = {
      ...object,
      metadata: {
        ...object.metadata,
        finalizers,
        deletionTimestamp: timestamp(new Date(now.getTime() + (graceful ? grace * 1000 : 0))),
        deletionGracePeriodSeconds: graceful ? grace : 0,
        ...(object.metadata.generation !== undefined ? { generation: object.metadata.generation + 1 } : {}),
      },
    };
    if (marked.metadata.finalizers?.length === 0) delete marked.metadata.finalizers;
    const stored = this.store.commit(key, "MODIFIED", marked).object;
    this.#afterWrite(resource, object, stored);
    return stored;
  }

  /** Admission: mutating then validating webhooks; the webhook configurations themselves are exempt. */
  async #admit(a: { operation: AdmissionAttributes["operation"]; resource: ResourceType; version: string; subresource: string; namespace: string | undefined; name: string; object: KubeObject | null; oldObject: KubeObject | null; nsLabels: Readonly<Record<string, string>>; dryRun: boolean }): Promise<KubeObject> {
    const key = storageKey(a.resource);
    if (WEBHOOK_RESOURCES.includes(key)) return a.object ?? (a.oldObject as KubeObject);
    const mutating = webhooksOf(this.store.list(WEBHOOK_RESOURCES[0] ?? "").map((s) => s.object));
    const validating = webhooksOf(this.store.list(WEBHOOK_RESOURCES[1] ?? "").map((s) => s.object));
    if (mutating.length === 0 && validating.length === 0) return a.object ?? (a.oldObject as KubeObject);
    const attributes: AdmissionAttributes = { operation: a.operation, type: a.resource, version: a.version, subresource: a.subresource, namespace: a.namespace, name: a.name, object: a.object, oldObject: a.oldObject, namespaceLabels: a.nsLabels, dryRun: a.dryRun };
    const mutated = a.operation === "DELETE" ? a.object : await mutate(mutating, attributes, this.#resolveService);
    await validateWebhooks(validating, { ...attributes, object: mutated }, this.#resolveService);
    return mutated ?? (a.oldObject as KubeObject);
  }

  /** CRD objects: prune unknown fields, apply defaults, validate against the version's schema. */
  #customResource(resource: ResourceType, object: KubeObject, apiVersion: string): KubeObject {
    if (!resource.crd) return object;
    const version = splitApiVersion(apiVersion).version;
    const schema = resource.crd.schemas.get(version) as Schema | undefined;
    if (!schema) return object;
    const pruned = applyDefaults(schema, prune(schema, object as unknown as Json, true)) as unknown as KubeObject;
    const causes = validateSchema(schema, pruned, "").filter((c) => !c.field.startsWith("metadata") && c.field !== "apiVersion" && c.field !== "kind");
    if (causes.length > 0) throw invalid(resource.kind, resource.group, object.metadata.name ?? "", causes);
    return pruned;
  }

  /** Validation: metadata and spec per kind, the Job and CRD rules; one 422 Invalid lists every cause. */
  #validate(resource: ResourceType, object: KubeObject, old?: KubeObject, subresource?: string): void {
    // Metadata and the kind's spec (sim/pipeline/validation.ts); status and finalize writes change neither.
    const causes: Cause[] = subresource ? [] : validateObject(resource, object, old);
    if (resource.group === "batch" && resource.kind === "Job") causes.push(...jobCauses(object));
    if (isPriorityClass(resource) && !subresource) causes.push(...priorityClassCauses(object, old));
    if (resource.group === "apiextensions.k8s.io") {
      const checked = checkCrd(object);
      if ("causes" in checked) causes.push(...checked.causes);
      else if (this.registry.conflicts(checked.spec.group, checked.spec.names.plural, object.metadata.name ?? "")) {
        causes.push({ field: "spec.names.plural", reason: "FieldValueInvalid", message: `Invalid value: "${checked.spec.names.plural}": is already served by another resource` });
      }
    }
    if (causes.length > 0) throw invalid(resource.kind, resource.group, object.metadata.name ?? "", causes);
  }

  /** Side effects of a committed create/update: CRDs start and stop serving (namespaces are emptied by their controller). */
  #afterWrite(resource: ResourceType, _before: KubeObject | undefined, after: KubeObject): void {
    if (resource.group === "apiextensions.k8s.io" && !after.metadata.deletionTimestamp) this.#serveCrd(after);
    if (resource.group === "apiextensions.k8s.io" && after.metadata.deletionTimestamp) this.#unserveCrd(after);
  }

  #afterDelete(resource: ResourceType, removed: KubeObject): void {
    if (resource.group === "apiextensions.k8s.io") this.#unserveCrd(removed);
  }

  #serveCrd(crd: KubeObject): void {
    const checked = checkCrd(crd);
    if ("causes" in checked) return;
    const name = crd.metadata.name ?? "";
    this.registry.serveCrd(name, resourceOfCrd(name, checked.spec));
    const status = establishedStatus(checked.spec, timestamp(this.#now()), (crd as Obj).status);
    if (JSON.stringify(status) !== JSON.stringify((crd as Obj).status)) {
      this.store.commit("apiextensions.k8s.io/customresourcedefinitions", "MODIFIED", { ...crd, status } as KubeObject);
    }
  }

  /** A deleted CRD stops serving its kind; its objects go with it (each with a DELETED event). */
  #unserveCrd(crd: KubeObject): void {
    const served = this.registry.unserveCrd(crd.metadata.name ?? "");
    if (!served) return;
    const key = storageKey(served);
    for (const stored of this.store.list(key)) this.store.commit(key, "DELETED", stored.object);
    this.store.dropTable(key);
    if (crd.metadata.deletionTimestamp && (crd.metadata.finalizers ?? []).length === 0) this.store.commit("apiextensions.k8s.io/customresourcedefinitions", "DELETED", crd);
  }

  /** The stored PriorityClasses (what the Priority admission plugin resolves pods with). */
  #priorityClasses(): KubeObject[] {
    return this.store.list(PRIORITY_CLASSES).map((s) => s.object);
  }

  /** The Priority plugin's validation of a PriorityClass: one global default at most. */
  #checkGlobalDefault(object: KubeObject, operation: "CREATE" | "UPDATE"): void {
    const error = globalDefaultConflict(object, operation, this.#priorityClasses());
    if (error) throw error;
  }

  /** NamespaceLifecycle: the namespace must exist, and take no new content while terminating. */
  #liveNamespace(namespace: string, forCreate: boolean, resource: ResourceType, object: KubeObject): Readonly<Record<string, string>> {
    const ns = this.store.get("/namespaces", undefined, namespace);
    if (!ns) throw notFound({ group: "", plural: "namespaces", kind: "Namespace" }, namespace);
    if (forCreate && terminating(ns.object)) throw terminatingError(resource, object, namespace);
    return ns.object.metadata.labels ?? {};
  }

  #namespaceLabels(namespace: string): Readonly<Record<string, string>> {
    return this.store.get("/namespaces", undefined, namespace)?.object.metadata.labels ?? {};
  }

  /** The object as served at `apiVersion` (CRDs serve one schema at several versions). */
  #served(resource: ResourceType, object: KubeObject, apiVersion: string): KubeObject {
    return object.apiVersion === apiVersion || !resource.versions.includes(splitApiVersion(apiVersion).version) ? object : { ...object, apiVersion: objectApiVersion(resource, splitApiVersion(apiVersion).version) };
  }

  #stamp(object: KubeObject): KubeObject {
    return { ...object, metadata: { uid: crypto.randomUUID(), creationTimestamp: timestamp(this.#now()), ...object.metadata } };
  }

  #allocateIp(): string {
    this.#ipCounter += 1;
    return `10.96.${Math.floor(this.#ipCounter / 250)}.${(this.#ipCounter % 250) + 1}`;
  }
}

/**
 * The part of a written body the write keeps: a status write keeps only the body's
 * `status` (and its metadata names the object), so only that is decoded. Status writes
 * are the kubelet's most frequent, and decoding a whole pod each time was the sim's
 * largest cost under load.
 */
function kept(object: KubeObject, options: WriteOptions): KubeObject {
  if (options.subresource !== "status") return object;
  const status = (object as Obj).status;
  return { apiVersion: object.apiVersion, kind: object.kind, metadata: object.metadata, ...(status === undefined ? {} : { status }) } as KubeObject;
}

/**
 * A delete precondition that fails in storage: kube-apiserver v1.36 names the object by
 * its kind there (`Operation cannot be fulfilled on ConfigMap "x": the UID in the
 * precondition ...`), details.kind the kind too (checked on core kinds by npm run conformance).
 */
function preconditionFailed(resource: ResourceType, name: string, why: string): ApiError {
  const kind = resource.group === "" ? resource.kind : `${resource.kind}.${resource.group}`;
  return new ApiError(409, "Conflict", `Operation cannot be fulfilled on ${kind} "${name}": ${why}`, { name, group: resource.group, kind: resource.kind });
}
