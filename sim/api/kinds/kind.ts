/**
 * A kind as the sim's API server treats it: kube-apiserver's per-kind registry strategy
 * (defaulting on create and update, what an update keeps, validation, the stored form,
 * graceful deletion, what a committed write sets off). A kind's entry says only where it
 * differs from most kinds; `builtinKind` fills in the rest. The orchestrator
 * (sim-cluster.ts) and the admission steps call these hooks and never ask which kind
 * they hold.
 */
import type { KubeObject } from "../../../protocol/index.ts";
import type { ApiError, DeleteOptions } from "../../contract.ts";
import { dropEmpty, withoutStatus } from "../../pipeline/defaults.ts";
import type { Cause } from "../../pipeline/errors.ts";
import { dnsSubdomainName, type NameRule } from "../../../protocol/kube/names.ts";
import type { Registry } from "../../registry/registry.ts";
import type { ResourceType } from "../../registry/resource.ts";
import type { Deletion } from "../deletion.ts";
import type { Server, Write } from "../write.ts";

/** Graceful deletion (pods): a delete marks the object, and something else finishes it. */
export interface GracefulDeletion {
  /** The grace period of a delete that names none (a pod's terminationGracePeriodSeconds, else 30). */
  readonly defaultSeconds: (object: KubeObject) => number;
  /** Whether something will finish the object's deletion (a pod bound to a node: its kubelet); else it goes at once. */
  readonly awaitsTermination: (object: KubeObject) => boolean;
}

/** The strategy of one kind. */
export interface Kind {
  /** How metadata.name and generateName are checked; undefined: the metadata is not validated (core/v1 Event). */
  readonly nameRule: NameRule | undefined;
  /** Defaults and PrepareForCreate: the object as it will be created. */
  readonly defaultCreate: (object: KubeObject, write: Write) => KubeObject;
  /** What a write of the main resource keeps of the stored object beyond metadata and status (a namespace's spec.finalizers). */
  readonly keepOnUpdate: (draft: KubeObject, current: KubeObject) => KubeObject;
  /** Defaults of every update and status write (kube-apiserver defaults whatever it decodes). */
  readonly defaultUpdate: (object: KubeObject, write: Write) => KubeObject;
  /** Field errors of a write to the main resource beyond its metadata's (`old`: the stored object of an update; `registry`: what is served). */
  readonly validate: (object: KubeObject, old: KubeObject | undefined, registry: Registry) => Cause[];
  /** Field errors of a status or finalize write. */
  readonly validateSubresource: (object: KubeObject, old: KubeObject, registry: Registry) => Cause[];
  /** The object as stored: kube-apiserver's encoding leaves out what is empty. */
  readonly canonicalize: (object: KubeObject) => KubeObject;
  /** Refuses (400) a decoded body the kind's Go types could not hold. */
  readonly checkDecoded?: (object: KubeObject) => void;
  /** A write of the `finalize` subresource (namespaces): the draft it makes of the stored object. */
  readonly finalize?: (current: KubeObject, incoming: KubeObject) => KubeObject;
  /**
   * A DELETE answers the object itself even once it is gone (the registry's
   * `ReturnDeletedObject`); other kinds, custom resources included, answer a Success Status.
   */
  readonly returnsDeletedObject?: true;
  /** Admission webhooks are not called for this kind (the webhook configurations themselves). */
  readonly exemptFromWebhooks?: true;
  /** Present for kinds whose deletion is graceful. */
  readonly graceful?: GracefulDeletion;
  /** The propagation policy of a delete that names none (the strategy's DefaultGarbageCollectionPolicy). */
  readonly defaultPropagation?: DeleteOptions["propagationPolicy"];
  /** A delete of its own (a namespace's first delete only starts its termination); the common one when absent. */
  readonly delete?: (object: KubeObject, options: DeleteOptions, now: () => Date) => Deletion;
  /** Whether an update that leaves no finalizers removes the object (a namespace waits for its spec.finalizers too). */
  readonly removableOnUpdate?: (object: KubeObject) => boolean;
  /** The storage's refusal to delete this object, if it refuses (the system PriorityClasses). */
  readonly refuseDelete?: (name: string) => ApiError | undefined;
  /** What a committed write sets off (a CRD starts or stops serving its kind). */
  readonly committed?: (type: "ADDED" | "MODIFIED" | "DELETED", object: KubeObject, server: Server) => void;
}

/** A built-in kind: what it is served as, and its strategy. */
export interface BuiltinKind extends Kind {
  readonly resource: ResourceType;
}

/** How a built-in resource is declared: its names, scope and subresources. */
export interface ResourceSpec {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  readonly shortNames?: string[];
  readonly categories?: string[];
  /** A status subresource. */
  readonly status?: boolean;
  /** metadata.generation maintained. */
  readonly generation?: boolean;
  /** Subresources besides status (pods/binding). */
  readonly extra?: string[];
  /** Field selector labels beyond metadata.name and metadata.namespace. */
  readonly fields?: string[];
}

function builtinResource(spec: ResourceSpec): ResourceType {
  return {
    group: spec.group,
    version: spec.version,
    versions: [spec.version],
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    plural: spec.plural,
    singular: spec.kind.toLowerCase(),
    namespaced: spec.namespaced,
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    statusSubresource: spec.status ?? false,
    generation: spec.generation ?? false,
    extraSubresources: spec.extra ?? [],
    fieldLabels: spec.fields ?? [],
  };
}

const same = (object: KubeObject): KubeObject => object;
const keep = (draft: KubeObject): KubeObject => draft;
const noCauses = (): Cause[] => [];
const canonical = (object: KubeObject): KubeObject => dropEmpty(object);

/**
 * A built-in kind: names checked as DNS subdomains, created without a status when it has a
 * status subresource, no defaults on update, no rules beyond metadata, empty metadata
 * fields dropped; `strategy` says where the kind differs.
 */
export function builtinKind(spec: ResourceSpec, strategy: Partial<Kind> = {}): BuiltinKind {
  const resource = builtinResource(spec);
  return {
    resource,
    nameRule: dnsSubdomainName,
    defaultCreate: resource.statusSubresource ? withoutStatus : same,
    keepOnUpdate: keep,
    defaultUpdate: same,
    validate: noCauses,
    validateSubresource: noCauses,
    canonicalize: canonical,
    ...strategy,
  };
}
