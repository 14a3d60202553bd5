import { z } from "zod";
import { KindKey, KubeObject } from "./objects.ts";
import { Action } from "./plan.ts";
import { Timestamp } from "./reconcile.ts";
import { RelatedObjects } from "./related.ts";

/**
 * Who may read an API's answer (ADR 0010, "Read APIs: who sees what"): the caller must
 * send a bearer token the API server authenticates (a TokenReview), a `?namespace=` it
 * may not `verb` `resource` in is refused 403, and of the answer's `items` array it gets
 * only the items whose `namespace` it may (SubjectAccessReviews, one for every namespace
 * at once first). As kube-rbac-proxy guards a metrics endpoint, with the caller's own RBAC.
 */
export const ApiReaders = z.object({
  /** The API group of `resource` ("" for the core group). */
  group: z.string().regex(/^([a-z0-9.-]*)$/),
  /** A namespaced resource whose `verb` in a namespace lets a caller see that namespace's items, e.g. `pods`. */
  resource: z.string().regex(/^[a-z0-9.-]+$/),
  verb: z.string().regex(/^[a-z]+$/),
  /** The top-level field of the answer's JSON body holding the items, each with a `namespace` string. */
  items: z.string().regex(/^[A-Za-z0-9_]+$/),
});
export type ApiReaders = z.infer<typeof ApiReaders>;

/**
 * An HTTP API a controller serves to the cluster (one a training job's pods call): the
 * relay's TLS front answers every method under `pathPrefix` by forwarding the request,
 * signed, to `POST /v1/api/{name}`, applying the actions of the answer, then replying.
 */
export const ApiSpec = z.object({
  name: z.string().regex(/^[a-z0-9-]+$/),
  /** Served by the front at this path and below, e.g. `/v1alpha1/replicas`. */
  pathPrefix: z.string().regex(/^(\/[A-Za-z0-9._-]+)+$/, "expected an absolute path such as /v1alpha1/replicas"),
  /** Kinds whose cached objects the relay attaches as `related`, each narrowed to the request. */
  related: z.array(RelatedObjects).default([]),
  timeoutSeconds: z.number().int().min(1).max(60).default(10),
  /** Set for an API that reads state across namespaces: who may read what (unset: unauthenticated, ADR 0010). */
  readers: ApiReaders.optional(),
});
export type ApiSpec = z.infer<typeof ApiSpec>;

/** What the relay forwards to `POST /v1/api/{name}`. */
export const ApiRequest = z.object({
  /** Unique per forwarded request: the seed of any generated names, so a handler stays pure. */
  id: z.string().min(1),
  method: z.enum(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]),
  /** The full path as the client sent it, without the query. */
  path: z.string().startsWith("/"),
  /** Query parameters; the first value of a repeated one. */
  query: z.record(z.string(), z.string()).default({}),
  /** The raw request body ("" when none); the handler parses it. */
  body: z.string().default(""),
  related: z.record(KindKey, z.array(KubeObject)).default({}),
  /** The relay's clock, RFC 3339. */
  now: Timestamp,
});
export type ApiRequest = z.infer<typeof ApiRequest>;

const Reply = z.object({
  status: z.number().int().min(200).max(599),
  /** JSON sent to the client as-is. */
  body: z.unknown(),
});

/**
 * The Worker's answer: the reply for the client and the actions the relay applies, in
 * order, before it replies. When an action fails, the client gets `onApplyError` instead
 * (a `message` string in its body gets the API server's error appended), or a 502.
 */
export const ApiResponse = Reply.extend({
  actions: z.array(Action).default([]),
  onApplyError: Reply.optional(),
  /**
   * Up to this many consecutive actions of one type, creates or deletes, are applied at
   * once (1: strictly one after another). For answers whose creates do not depend on each
   * other, such as a replica's pods and Services.
   */
  concurrency: z.number().int().min(1).max(32).default(1),
});
export type ApiResponse = z.infer<typeof ApiResponse>;

/** An `ApiResponse` as a handler writes it (defaults may be left out). */
export type ApiAnswer = z.input<typeof ApiResponse>;

/** A request body parsed as JSON; `undefined` when it is not JSON (or empty). */
export function apiJsonBody(body: string): unknown {
  if (body.trim() === "") return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The namespace an API request names: `?namespace=` first, else a top-level `namespace`
 * of a JSON object body. One reading for the relay (which scopes the request's actions
 * to it) and the Worker (whose ledger for the request it names).
 */
export function apiRequestNamespace(query: Readonly<Record<string, string>>, parsedBody: unknown): string | undefined {
  if (query.namespace) return query.namespace;
  if (typeof parsedBody !== "object" || parsedBody === null || Array.isArray(parsedBody)) return undefined;
  const namespace = (parsedBody as { namespace?: unknown }).namespace;
  return typeof namespace === "string" && namespace !== "" ? namespace : undefined;
}
