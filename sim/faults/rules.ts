/**
 * What a fault rule is: which API requests it selects (verb, resource, subresource,
 * namespace) and how the sim answers them instead (a status code, with `Retry-After` when
 * given, or a delay before the normal answer), how often (a count, a probability).
 */
import { z } from "zod";

/** The Kubernetes verbs of a request, as RBAC names them. */
export const VERBS = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"] as const;
export type Verb = (typeof VERBS)[number];

/** How a selected request is answered. */
export const FaultAnswer = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("status"),
    /** 409 Conflict, 429 TooManyRequests, 500 InternalError, 503 ServiceUnavailable, ... */
    code: z.number().int().min(400).max(599),
    /** Sent as `Retry-After: N` (and in the Status' `details.retryAfterSeconds`). */
    retryAfterSeconds: z.number().int().min(1).max(3600).optional(),
  }),
  z.object({
    type: z.literal("delay"),
    /** Milliseconds before the request is served as usual. */
    ms: z.number().int().min(1).max(120_000),
  }),
]);
export type FaultAnswer = z.infer<typeof FaultAnswer>;

/** One rule. Absent selectors select everything. */
export const FaultRule = z.object({
  verbs: z.array(z.enum(VERBS)).min(1).optional(),
  /** Plural resource names (`pods`, `federatedlearningjobs`). */
  resources: z.array(z.string().min(1)).min(1).optional(),
  /** `status`, `binding`, ... ; `""` selects requests without a subresource only. */
  subresource: z.string().optional(),
  namespace: z.string().min(1).optional(),
  answer: FaultAnswer,
  /** How many requests it answers before it is spent; unlimited when absent. */
  count: z.number().int().min(1).optional(),
  /** The chance that a selected request is answered so (seeded; default 1). */
  probability: z.number().min(0).max(1).default(1),
});
export type FaultRule = z.input<typeof FaultRule>;
export type ParsedFaultRule = z.output<typeof FaultRule>;

/** What the sim knows of a request when it decides. */
export interface FaultRequest {
  readonly verb: Verb;
  readonly resource: string;
  readonly subresource: string | undefined;
  readonly namespace: string | undefined;
  /** The object's name: from the URL, or (a create) from the body's `name` or `generateName`. */
  readonly name: string | undefined;
  readonly method: string;
  readonly path: string;
}

/** Whether `rule` selects `request`. */
export function selects(rule: ParsedFaultRule, request: FaultRequest): boolean {
  if (rule.verbs && !rule.verbs.includes(request.verb)) return false;
  if (rule.resources && !rule.resources.includes(request.resource)) return false;
  if (rule.subresource !== undefined && rule.subresource !== (request.subresource ?? "")) return false;
  if (rule.namespace !== undefined && rule.namespace !== request.namespace) return false;
  return true;
}

/** The verb of an HTTP request on a resource URL (`watch=true` makes a GET a watch). */
export function verbOf(method: string, named: boolean, watch: boolean): Verb {
  switch (method) {
    case "GET":
      return watch ? "watch" : named ? "get" : "list";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return named ? "delete" : "deletecollection";
    default:
      return "get";
  }
}
