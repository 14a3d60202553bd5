import type { z } from "zod";

/** An extra column `kubectl get` prints for a custom resource. */
export interface PrinterColumn {
  readonly name: string;
  readonly type: "string" | "integer" | "number" | "boolean" | "date";
  readonly jsonPath: string;
  readonly description?: string;
}

/**
 * One custom resource, defined once: its zod schemas are the single source of truth
 * for the TypeScript types, the CRD's openAPIV3Schema and the parsing of its objects.
 */
export interface CustomResource<Spec extends z.ZodType = z.ZodType, Status extends z.ZodType = z.ZodType> {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames?: readonly string[];
  readonly scope: "Namespaced" | "Cluster";
  readonly spec: Spec;
  readonly status?: Status;
  readonly printerColumns?: readonly PrinterColumn[];
}
