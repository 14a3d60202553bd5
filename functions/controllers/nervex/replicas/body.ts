/**
 * The request bodies of the replicas API. DI-engine's coordinator sends every body as a
 * JSON string without a Content-Type (and `{}` on GET and DELETE), so the raw string is
 * parsed here: bounded in size, JSON, then checked field by field; every refusal names
 * the field.
 */
import { z } from "zod";
import { NamespaceName } from "../../../../protocol/index.ts";
import { parseQuantity } from "../../../../protocol/kube/quantity.ts";
import { failure, success, type Outcome } from "./envelope.ts";
import { describeIssue } from "./issues.ts";

/** The largest body accepted, in UTF-8 bytes. */
export const MAX_BODY_BYTES = 64 * 1024;
/** The most replicas of one type a request may create or delete. */
export const MAX_REPLICAS = 100;
/** The most GPUs one learner may ask for (each becomes a port of a ddp-learner). */
export const MAX_GPUS = 256;
/** The most pods one request may name (in `/failed`). */
export const MAX_NAMED_PODS = 100;

/** The longest quantity string accepted. */
const MAX_QUANTITY_LENGTH = 64;

/**
 * A resource quantity as a string or a number (upstream's `resource.Quantity` reads
 * both), non-negative, as the API server parses it (`500m`, `2Gi`, `1.5`, `1e3`); `""`
 * and `null` mean none. The result is the quantity string, or undefined.
 */
export const Quantity = z.unknown().optional().transform((value, context): string | undefined => {
  if (value === null || value === undefined || value === "") return undefined;
  const text = typeof value === "number" ? String(value) : typeof value === "string" && value.length <= MAX_QUANTITY_LENGTH ? value : undefined;
  const quantity = text === undefined || text.trim() !== text ? undefined : parseQuantity(text);
  if (text !== undefined && quantity !== undefined && quantity.nanos >= 0n) return text;
  context.addIssue({ code: "custom", message: "expected a non-negative Kubernetes quantity such as 500m, 2Gi or 1.5" });
  return z.NEVER;
});

/** Whether a quantity (as `Quantity` returns it) is zero, whatever its suffix (`0`, `0m`, `0.0Gi`). */
export function isZeroQuantity(quantity: string): boolean {
  return parseQuantity(quantity)?.nanos === 0n;
}

/** A whole number of GPUs, as a number or a quantity string (`"2"`); none is 0. */
export const GpuCount = z.unknown().optional().transform((value, context): number => {
  if (value === null || value === undefined || value === "") return 0;
  const count = typeof value === "number" ? value : typeof value === "string" && /^\d{1,6}$/.test(value) ? Number(value) : Number.NaN;
  if (Number.isInteger(count) && count >= 0 && count <= MAX_GPUS) return count;
  context.addIssue({ code: "custom", message: `expected a whole number of GPUs from 0 to ${MAX_GPUS}` });
  return z.NEVER;
});

/** A replica count: a whole number from 0 to `MAX_REPLICAS`; none is 0. */
export const ReplicaCount = z.unknown().optional().transform((value, context): number => {
  if (value === null || value === undefined) return 0;
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_REPLICAS) return value;
  context.addIssue({ code: "custom", message: `expected a whole number from 0 to ${MAX_REPLICAS}` });
  return z.NEVER;
});

/** How many replicas of one type, and the resources of each. */
export const ReplicaResources = z.object({
  replicas: ReplicaCount,
  cpus: Quantity,
  gpus: GpuCount,
  memory: Quantity,
});
export type ReplicaResources = z.infer<typeof ReplicaResources>;

const NONE: ReplicaResources = { replicas: 0, cpus: undefined, gpus: 0, memory: undefined };

/** A namespace as a body or query names it. */
const Namespace = z.string({ error: "required (a string)" }).min(1, "required").pipe(NamespaceName);
/** A pod name as a body names it. */
const PodName = z.string({ error: "required (a string)" }).min(1, "required").max(253, "at most 253 characters");

/** `POST` / `DELETE /v1alpha1/replicas`: `{namespace, coordinator, collectors, learners}` (either group optional). */
export const ReplicasBody = z.object({
  namespace: Namespace,
  coordinator: PodName,
  collectors: ReplicaResources.nullish().transform((group) => group ?? { ...NONE }),
  learners: ReplicaResources.nullish().transform((group) => group ?? { ...NONE }),
});
export type ReplicasBody = z.infer<typeof ReplicasBody>;

const PodNames = z
  .array(PodName)
  .max(MAX_NAMED_PODS, `at most ${MAX_NAMED_PODS} pods`)
  .nullish()
  .transform((names) => names ?? []);

/** `POST /v1alpha1/replicas/failed`: `{namespace, coordinator, collectors:[pod], learners:[pod]}`. */
export const FailedBody = z.object({
  namespace: Namespace,
  coordinator: PodName,
  collectors: PodNames,
  learners: PodNames,
});
export type FailedBody = z.infer<typeof FailedBody>;

/** The raw body as JSON: at most `MAX_BODY_BYTES`, empty or blank read as `{}`. */
export function parseJson(raw: string): Outcome<unknown> {
  if (raw.length > MAX_BODY_BYTES || new TextEncoder().encode(raw).length > MAX_BODY_BYTES) {
    return failure(400, `body: larger than ${MAX_BODY_BYTES} bytes`);
  }
  if (raw.trim() === "") return success({});
  try {
    return success(JSON.parse(raw) as unknown);
  } catch {
    return failure(400, "body: not valid JSON");
  }
}

/**
 * The raw body parsed and checked against `schema`. The namespace is the one the relay
 * scoped the request to (`?namespace=` first, else the body's): a query naming another
 * namespace than the body is refused rather than acted on in the wrong one.
 */
export function parseBody<S extends z.ZodType<{ namespace: string }>>(raw: string, query: Readonly<Record<string, string>>, schema: S): Outcome<z.infer<S>> {
  const json = parseJson(raw);
  if (!json.ok) return json;
  const parsed = schema.safeParse(json.value);
  if (!parsed.success) return failure(400, describeIssue(parsed.error, "body"));
  const scoped = query["namespace"];
  if (scoped && scoped !== parsed.data.namespace) {
    return failure(400, `namespace: the body names ${parsed.data.namespace} but the query names ${scoped}`);
  }
  return success(parsed.data);
}
