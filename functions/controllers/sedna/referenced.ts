/** The Models and Datasets a Sedna spec references, read from the snapshot's `related` objects. */
import type { KubeObject, ReconcileRequest } from "../../../protocol/index.ts";
import { SEDNA_API_VERSION } from "./group.ts";
import { DatasetSpec } from "./dataset.ts";
import { ModelSpec } from "./model.ts";

/** The `related` keys of Models and Datasets. */
export const MODEL_KEY = `Model.${SEDNA_API_VERSION}`;
export const DATASET_KEY = `Dataset.${SEDNA_API_VERSION}`;

/** A Model or Dataset the spec names could not be used. */
export interface MissingReference {
  readonly kind: "Model" | "Dataset";
  readonly name: string;
  /** The spec field that names it: `spec.trainingWorkers[1].dataset.name`. */
  readonly field: string;
  readonly reason: "NotFound" | "Invalid";
}

function find(request: ReconcileRequest, key: string, namespace: string | undefined, name: string): KubeObject | undefined {
  return (request.related[key] ?? []).find(
    (o) => o.metadata.name === name && (o.metadata.namespace ?? undefined) === namespace && o.metadata.deletionTimestamp === undefined,
  );
}

/** The spec of the Model that `field` names in the parent's namespace, or why it is unusable. */
export function modelSpec(request: ReconcileRequest, namespace: string | undefined, name: string, field: string): ModelSpec | MissingReference {
  const object = find(request, MODEL_KEY, namespace, name);
  if (!object) return { kind: "Model", name, field, reason: "NotFound" };
  const parsed = ModelSpec.safeParse(object["spec"]);
  return parsed.success ? parsed.data : { kind: "Model", name, field, reason: "Invalid" };
}

/** The spec of the Dataset that `field` names in the parent's namespace, or why it is unusable. */
export function datasetSpec(request: ReconcileRequest, namespace: string | undefined, name: string, field: string): DatasetSpec | MissingReference {
  const object = find(request, DATASET_KEY, namespace, name);
  if (!object) return { kind: "Dataset", name, field, reason: "NotFound" };
  const parsed = DatasetSpec.safeParse(object["spec"]);
  return parsed.success ? parsed.data : { kind: "Dataset", name, field, reason: "Invalid" };
}

/** Narrows a lookup result. */
export function isMissing(value: object): value is MissingReference {
  return "reason" in value && "kind" in value && "field" in value && !("url" in value);
}

/** `spec.trainingWorkers[1].dataset.name: Dataset "d" not found`, one per reference, `; `-joined. */
export function describeMissing(missing: readonly MissingReference[]): string {
  return missing.map((m) => `${m.field}: ${m.kind} "${m.name}" ${m.reason === "NotFound" ? "not found" : "has an invalid spec"}`).join("; ");
}
