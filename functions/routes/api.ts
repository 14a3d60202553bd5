import { z } from "zod";
import { parseJson } from "../http/body.ts";
import { HttpError } from "../http/errors.ts";
import { ApiRequest, ApiResponse, apiJsonBody, apiRequestNamespace, type Action } from "../../protocol/index.ts";
import { isDns1123Label } from "../../protocol/kube/names.ts";
import type { WorkerDeps } from "../deps.ts";
import { stableStringify } from "../kit/hash.ts";
import type { Registry } from "../registry.ts";

/** `POST /v1/api/:api`: an HTTP request the relay's front received, answered with a reply and actions. */
export async function apiRoute(registry: Registry, name: string, body: Uint8Array, deps: WorkerDeps): Promise<ApiResponse> {
  const api = registry.api(name);
  if (!api) throw new HttpError(404, "unknown_api", `no API named ${name}`, "api");
  const request = parseJson(body, ApiRequest);
  const prefix = api.spec.pathPrefix;
  if (request.path !== prefix && !request.path.startsWith(`${prefix}/`)) {
    throw new HttpError(400, "invalid", `path ${request.path} is not under ${prefix}`, "path");
  }
  const window = api.retryWindowSeconds;
  if (window !== undefined && changesState(request) && api.retriesConverge?.(request) === true) {
    const attempt = await firstAttempt(name, window, request, deps);
    return ApiResponse.parse(await api.handle({ ...request, id: attempt }, deps.settings, { durableObject: deps.durableObject }));
  }
  const answer = ApiResponse.parse(await api.handle(request, deps.settings, { durableObject: deps.durableObject }));
  return window === undefined || !remembered(request, answer) ? answer : answerOnce(name, window, request, answer, deps);
}

function changesState(request: ApiRequest): boolean {
  return request.method !== "GET" && request.method !== "HEAD";
}

/** What the ledger holds of a request whose retries converge: the id of its first attempt. */
const FirstAttempt = z.object({ id: z.string().min(1) });

/**
 * The id of the first attempt of this request (same method, path, query and body) within
 * the window: `request.id` for the first. Only the id is held, never a reply, so a retry
 * after a lost answer or a partial apply is decided afresh against what exists, under the
 * first attempt's names (issue 28, findings 1 and 2).
 */
async function firstAttempt(api: string, windowSeconds: number, request: ApiRequest, deps: WorkerDeps): Promise<string> {
  const key = `api-attempt/${api}/${await fingerprint(request)}`;
  const held = await deps.ledger.remember(requestNamespace(request), key, windowSeconds, JSON.stringify({ id: request.id }));
  const parsed = FirstAttempt.safeParse(parseHeld(held));
  return parsed.success ? parsed.data.id : request.id;
}

function parseHeld(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Whether an answer is one a retry must not repeat: a state-changing request that succeeded with actions. */
function remembered(request: ApiRequest, answer: ApiResponse): boolean {
  return changesState(request) && answer.actions.length > 0 && answer.status < 300;
}

/**
 * What the ledger holds of a first answer: the request that made it, its reply, and, when
 * they may be sent again ({@link replayable}), its actions.
 */
const HeldAnswer = ApiResponse.partial({ actions: true, concurrency: true }).extend({ id: z.string().min(1) });

/** The most characters of a held answer with its actions (a ledger value must stay small); a larger one is held without them. */
const MAX_REPLAYED_CHARS = 1_000_000;

/**
 * Whether an action may be applied twice with one effect: a delete (one of an object
 * already gone succeeds) or a create that takes AlreadyExists as applied.
 */
function idempotent(action: Action): boolean {
  return action.type === "delete" || (action.type === "create" && action.ifAbsent === true);
}

/** Whether a retry may be sent the first answer's actions again: all idempotent. */
function replayable(answer: ApiResponse): boolean {
  return answer.actions.every(idempotent);
}

/**
 * A client that lost its connection sends the same request again (a training job's
 * coordinator retries up to five times): the first answer is held in the namespace's
 * ledger for the API's retry window, keyed by what the request says. When its actions are
 * all idempotent, a repeat gets the whole answer again, actions included: the relay
 * applies them (what the first attempt applied is a no-op) before it replies, so a reply
 * is never given for actions not applied, whether the first answer was lost on its way to
 * the relay or the relay died applying it (issue 28). Otherwise a repeat gets the reply
 * and no actions, and the actions carry the key as a release token: if the relay cannot
 * apply them, it releases the key, and the client's retry is decided afresh.
 */
async function answerOnce(api: string, windowSeconds: number, request: ApiRequest, answer: ApiResponse, deps: WorkerDeps): Promise<ApiResponse> {
  const namespace = requestNamespace(request);
  const key = `api/${api}/${await fingerprint(request)}`;
  const whole = JSON.stringify({ ...answer, id: request.id });
  const replay = replayable(answer) && whole.length <= MAX_REPLAYED_CHARS;
  const mine = replay ? whole : JSON.stringify({ id: request.id, status: answer.status, body: answer.body });
  const held = HeldAnswer.parse(JSON.parse(await deps.ledger.remember(namespace, key, windowSeconds, mine)));
  if (held.id !== request.id) {
    const { id: _id, ...first } = held;
    return { ...first, actions: first.actions ?? [], concurrency: first.concurrency ?? 1 };
  }
  if (replay) return answer;
  const release = { ...(namespace === undefined ? {} : { namespace }), key };
  return { ...answer, actions: answer.actions.map((action): Action => (action.release ? action : { ...action, release })) };
}

/** SHA-256 (hex) of the method, path, query and body; a JSON body in its canonical form, so spacing and key order do not matter. */
async function fingerprint(request: ApiRequest): Promise<string> {
  const query = stableStringify(request.query);
  const text = `${request.method}\n${request.path}\n${query}\n${canonicalBody(request.body)}`;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

function canonicalBody(body: string): string {
  try {
    return stableStringify(JSON.parse(body));
  } catch {
    return body;
  }
}

/** The namespace the request names (`?namespace=`, else a top-level `namespace` of a JSON body): its ledger. */
function requestNamespace(request: ApiRequest): string | undefined {
  const named = apiRequestNamespace(request.query, apiJsonBody(request.body));
  // Only a valid namespace names a ledger; anything else shares the cluster-wide one.
  return named !== undefined && isDns1123Label(named).length === 0 ? named : undefined;
}
