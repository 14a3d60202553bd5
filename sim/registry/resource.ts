/** What the API server knows about one served resource (built-in or from a CRD). */
export interface ResourceType {
  /** "" for the core group. */
  readonly group: string;
  readonly version: string;
  /** Every version the resource is served at (CRDs may serve several); `version` is the preferred one. */
  readonly versions: readonly string[];
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly statusSubresource: boolean;
  /** Whether metadata.generation is maintained (set on create, bumped on spec changes). */
  readonly generation: boolean;
  /** Extra subresources served besides status (pods/binding). */
  readonly extraSubresources: readonly string[];
  /** Field selector labels beyond metadata.name / metadata.namespace. */
  readonly fieldLabels: readonly string[];
  /** Present when the kind is served from a CustomResourceDefinition. */
  readonly crd?: CrdServing;
}

/** What a CRD adds: per-version schemas and printer columns. */
export interface CrdServing {
  readonly crdName: string;
  readonly schemas: ReadonlyMap<string, unknown>;
  readonly printerColumns: ReadonlyMap<string, readonly PrinterColumn[]>;
}

/** One `additionalPrinterColumns` entry of a CRD version. */
export interface PrinterColumn {
  readonly name: string;
  readonly type: string;
  readonly jsonPath: string;
  readonly description?: string;
  readonly format?: string;
  readonly priority?: number;
}

/** The storage key of a resource: one table per group/plural whatever the version. */
export function storageKey(type: Pick<ResourceType, "group" | "plural">): string {
  return `${type.group}/${type.plural}`;
}

/** The verbs discovery advertises. */
export const VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"] as const;
