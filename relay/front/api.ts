/**
 * The HTTP APIs the Worker serves to the cluster through the relay's TLS front (one a
 * training job's pods call, say): a request is forwarded, signed, with the cached objects the API
 * declared, narrowed to the request; the actions of the answer are applied in order;
 * only then is the client answered. The relay knows no API by name: the manifest lists them.
 */
import { randomUUID } from "node:crypto";
import { ApiRequest, apiJsonBody, apiRequestNamespace, type ApiResponse, type ApiSpec, type ClaimToken, type Manifest } from "../../protocol/index.ts";
import type { Logger } from "../../cli/log.ts";
import type { RelatedCaches } from "../../protocol/snapshot/caches.ts";
import { relatedObjects } from "../../protocol/snapshot/related.ts";
import { admitReader, visibleReply, type CallerReviews, type Visibility } from "./readers.ts";

/** What the front needs from the engine. */
export interface ApiHost {
  readonly manifest: Manifest;
  /** The unfiltered caches `related` objects come from. */
  readonly relatedCaches: RelatedCaches;
  forward(name: string, request: unknown, timeoutMs: number): Promise<ApiResponse>;
  /**
   * Applies one action of API `api`'s answer, only in `namespace` (the one the request
   * names; none: no namespaced object) and on kinds the controller declares; rejects a
   * refused action like a failed one.
   */
  applyAction(action: ApiResponse["actions"][number], api: string, namespace: string | undefined): Promise<void>;
  countApiRequest(api: string, status: number): void;
  /** Hands back the release tokens of actions not applied (so a client's retry is decided afresh). */
  releaseClaims(claims: readonly ClaimToken[]): Promise<void>;
  /** The API server's reviews of a caller, for APIs that declare `readers`. */
  readonly reviews: CallerReviews;
}

/** A request as the front received it. */
export interface IncomingApiRequest {
  readonly method: string;
  readonly url: string;
  readonly body: string;
  /** The `Authorization` header, if sent. */
  readonly authorization?: string | undefined;
}

/** A reply for the client. */
export interface ApiReply {
  readonly status: number;
  readonly body: unknown;
}

const METHODS: ReadonlySet<string> = new Set(ApiRequest.shape.method.options);

/** The API whose `pathPrefix` covers `path`, if any. */
export function apiFor(manifest: Manifest, path: string): ApiSpec | undefined {
  return manifest.controllers.flatMap((c) => c.apis).find((api) => path === api.pathPrefix || path.startsWith(`${api.pathPrefix}/`));
}

/** The namespace a request names: `?namespace=` first, else a top-level `namespace` of a JSON object body. */
export function requestNamespace(query: Readonly<Record<string, string>>, body: string): string | undefined {
  return apiRequestNamespace(query, apiJsonBody(body));
}

function appendMessage(body: unknown, error: string): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const message = (body as { message?: unknown }).message;
  return typeof message === "string" ? { ...body, message: message === "" ? error : `${message}: ${error}` } : body;
}

type Actions = ApiResponse["actions"];

/**
 * The next run of actions from `start`: consecutive creates (or deletes) up to
 * `concurrency` of them, applied at once; any other action alone.
 */
function runFrom(actions: Actions, start: number, concurrency: number): Actions {
  const first = actions[start];
  if (!first) return [];
  if (first.type !== "create" && first.type !== "delete") return [first];
  let end = start + 1;
  while (end < actions.length && end - start < concurrency && actions[end]?.type === first.type) end += 1;
  return actions.slice(start, end);
}

/**
 * Applies the answer's actions in order (runs of creates or deletes at once, up to the
 * answer's `concurrency`); the first failure decides the reply, and what was not applied
 * hands its release tokens back.
 */
async function applyAnswer(host: ApiHost, answer: ApiResponse, api: string, namespace: string | undefined, log: Logger): Promise<ApiReply> {
  for (let index = 0; index < answer.actions.length; ) {
    const run = runFrom(answer.actions, index, answer.concurrency);
    const results = await Promise.allSettled(run.map((action) => host.applyAction(action, api, namespace)));
    const failed = results.find((result): result is PromiseRejectedResult => result.status === "rejected");
    if (failed) {
      await release(host, answer.actions.slice(index), api, log);
      const message = (failed.reason as Error).message;
      if (answer.onApplyError) return { status: answer.onApplyError.status, body: appendMessage(answer.onApplyError.body, message) };
      return { status: 502, body: { error: { code: "apply_failed", message, path: "actions" } } };
    }
    index += run.length;
  }
  return { status: answer.status, body: answer.body };
}

/** Releases the distinct tokens of `unapplied`; a failure only logs (the claims expire instead). */
async function release(host: ApiHost, unapplied: ApiResponse["actions"], api: string, log: Logger): Promise<void> {
  const tokens = new Map<string, ClaimToken>();
  for (const action of unapplied) if (action.release) tokens.set(`${action.release.namespace ?? ""}/${action.release.key}`, action.release);
  if (tokens.size === 0) return;
  try {
    await host.releaseClaims([...tokens.values()]);
  } catch (error) {
    log("warn", "claim release failed; the claims expire instead", { api, error: String(error) });
  }
}

/** Serves one API request: forward, apply, reply. */
export async function serveApi(host: ApiHost, spec: ApiSpec, incoming: IncomingApiRequest, log: Logger): Promise<ApiReply> {
  const url = new URL(incoming.url, "https://relay.invalid");
  if (!METHODS.has(incoming.method)) return { status: 501, body: { error: { code: "method_not_supported", message: `method ${incoming.method} is not served`, path: "method" } } };
  // `/prefix/../x` and `/prefix/%2e%2e` leave the prefix once normalised: no API serves them (the Worker would refuse the envelope).
  if (url.pathname !== spec.pathPrefix && !url.pathname.startsWith(`${spec.pathPrefix}/`)) return { status: 404, body: { error: { code: "not_found", message: `no route ${incoming.method} ${url.pathname}`, path: "path" } } };
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] ??= value;
  const body = apiJsonBody(incoming.body);
  // `namedBy` paths of an API start from the query and the parsed body.
  const namespace = apiRequestNamespace(query, body);
  let visibility: Visibility | undefined;
  if (spec.readers !== undefined) {
    const named = namespace === undefined ? undefined : { namespace, path: query["namespace"] === undefined ? "body.namespace" : "query.namespace" };
    const admitted = await admitReader(host.reviews, spec.readers, incoming.authorization, named);
    if ("reply" in admitted) {
      host.countApiRequest(spec.name, admitted.reply.status);
      return admitted.reply;
    }
    visibility = admitted.visibility;
  }
  const related = relatedObjects(spec.related, { namespace, root: { query, body } }, host.relatedCaches);
  const request = { id: randomUUID(), method: incoming.method, path: url.pathname, query, body: incoming.body, related, now: new Date().toISOString() };
  const answered = await forwardAndApply(host, spec, request, namespace, log);
  const reply = spec.readers === undefined || visibility === undefined ? answered : await visibleReply(host.reviews, spec.readers, visibility, answered);
  host.countApiRequest(spec.name, reply.status);
  return reply;
}

async function forwardAndApply(host: ApiHost, spec: ApiSpec, request: object, namespace: string | undefined, log: Logger): Promise<ApiReply> {
  let answer: ApiResponse;
  const started = performance.now();
  try {
    answer = await host.forward(spec.name, request, spec.timeoutSeconds * 1000);
  } catch (error) {
    log("warn", "API forwarding failed", { api: spec.name, error: String(error) });
    return { status: 503, body: { error: { code: "worker_unavailable", message: `edgeloop API ${spec.name} unavailable: ${String(error)}`, path: "" } } };
  }
  const decided = performance.now();
  const reply = await applyAnswer(host, answer, spec.name, namespace, log);
  if (reply.status !== answer.status) log("warn", "API actions failed", { api: spec.name, status: reply.status, body: reply.body });
  // Where a slow call spent its time: deciding (the Worker) or applying (the API server).
  log("debug", "API request answered", { api: spec.name, status: reply.status, actions: answer.actions.length, decideMs: Math.round(decided - started), applyMs: Math.round(performance.now() - decided) });
  return reply;
}
