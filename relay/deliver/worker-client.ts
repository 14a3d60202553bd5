/**
 * Signed calls to the Worker (protocol v2): the method, the path and query and the exact
 * bytes sent are what is signed; answers are parsed with the protocol's zod schemas; a
 * failure is a `StatusError` carrying the Worker's error code and a 429's Retry-After.
 * The calls go through a {@link WorkerTransport}: HTTP by default; a benchmark passes
 * one that answers in process (ADR 0015).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { Agent, request, type Dispatcher } from "undici";
import type { z } from "zod";
import {
  AdmissionReviewResponse,
  ApiResponse,
  ChannelConnected,
  ChannelFeed,
  ChannelReceiveAnswer,
  ClaimReleased,
  ErrorBody,
  Manifest,
  READINESS_PATH,
  Readiness,
  OutboxBatch,
  Plan,
  StatusError,
  type ChannelConnect,
  type ChannelFeedRequest,
  type ChannelReceive,
  type ClaimToken,
  type Signer,
} from "../../protocol/index.ts";
import { createNodeSigner } from "./signer.ts";
import { ByteBudget } from "./byte-budget.ts";

/** One request as the client sends it: `fetch`'s init, plus the time the answer may take. */
export interface WorkerRequestInit {
  readonly method: "GET" | "POST";
  readonly headers: Record<string, string>;
  /** The JSON body as UTF-8 bytes: encoded once, signed and sent as they are (a string would be encoded again by each). */
  readonly body?: Uint8Array<ArrayBuffer>;
  readonly signal?: AbortSignal;
  /** How long the headers, then the body, may take (an HTTP transport's timeouts). */
  readonly timeoutMs: number;
}

/** The part of a `fetch` Response the client reads. */
export interface WorkerResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/**
 * How requests reach the Worker: `fetch`-like (the global `fetch` is one). It rejects when
 * the Worker cannot be reached; any answer, whatever its status, resolves.
 */
export type WorkerTransport = (url: string, init: WorkerRequestInit) => Promise<WorkerResponse>;

/**
 * How long an idle connection to the Worker is kept by default: 60 s (undici's default is
 * 4 s). Across the internet a new connection costs two round trips (TCP's and TLS's
 * handshakes) before its request leaves, and the relay's bursts (a resync's 256 reconciles
 * in flight) opened hundreds of connections that the next quiet moment closed: 6,139
 * connections in one run of `npm run bench -- wan`. Cloudflare keeps an idle HTTP/1.1
 * connection from a client 400 s, so 60 s never races its close. A local workerd closes
 * them after 5 s: the local stack passes 4 s (`--worker-keep-alive-seconds`).
 */
export const WORKER_KEEP_ALIVE_SECONDS = 60;

/**
 * The HTTP transport: undici's request, not fetch (the WHATWG streams and signals of fetch
 * were a fifth of the relay's CPU under load), on a pool of its own that keeps idle
 * connections `keepAliveSeconds`. Timeouts are the dispatcher's, not AbortSignals.
 */
export function httpTransport(keepAliveSeconds = WORKER_KEEP_ALIVE_SECONDS): WorkerTransport {
  const dispatcher = new Agent({ keepAliveTimeout: keepAliveSeconds * 1000, keepAliveMaxTimeout: Math.max(keepAliveSeconds, 300) * 1000 });
  return (url, init) => send(dispatcher, url, init);
}

async function send(dispatcher: Dispatcher, url: string, init: WorkerRequestInit): Promise<WorkerResponse> {
  const response: Dispatcher.ResponseData = await request(url, {
    dispatcher,
    method: init.method,
    headers: init.headers,
    ...(init.body === undefined ? {} : { body: init.body }),
    ...(init.signal ? { signal: init.signal } : {}),
    headersTimeout: init.timeoutMs,
    bodyTimeout: init.timeoutMs,
  });
  const header = (name: string): string | null => {
    const value = response.headers[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
  };
  return { status: response.statusCode, headers: { get: header }, text: () => response.body.text() };
}

const EMPTY = new Uint8Array(new ArrayBuffer(0));

/**
 * Bytes of snapshot and events bodies in flight at most (a body larger goes alone): two
 * events batches, or the first delivery's node snapshots of 1,000 pods each, whatever the
 * relay's concurrency (see `./byte-budget.ts`).
 */
export const BODY_BYTES_IN_FLIGHT = 8 * 1024 * 1024;

/** What a bulk delivery reserves before its first body on a route is known. */
const FIRST_BODY_ESTIMATE = 64 * 1024;

/** A body, or what builds it once the budget holds room for it (a snapshot built early is memory the budget does not see). */
export type Deferred<T> = T | (() => T);

/** How long the readiness call may take: a probe, not a request someone waits on. */
const READINESS_TIMEOUT_MS = 5_000;

/** The Worker as the relay sees it. */
export class WorkerClient {
  readonly #base: string;
  readonly #sign: Signer;
  readonly #timeoutMs: number;
  readonly #transport: WorkerTransport;
  /** The last outbox read and channel feed read sent, and the second each was signed at (see `#freshSecond`). */
  readonly #lastSigned = new Map<string, { request: string; at: number }>();
  /** Bounds the bulk deliveries (snapshots and events), not admission, API or outbox calls. */
  readonly #bodies = new ByteBudget(BODY_BYTES_IN_FLIGHT);
  /** The size of the last body sent on each bulk route: what the next one reserves before it is built. */
  readonly #lastBytes = new Map<string, number>();

  constructor(baseUrl: string, secret: string, timeoutMs = 30_000, transport: WorkerTransport = httpTransport()) {
    this.#base = baseUrl.replace(/\/$/, "");
    this.#sign = createNodeSigner(secret);
    this.#timeoutMs = timeoutMs;
    this.#transport = transport;
  }

  manifest(): Promise<Manifest> {
    return this.#call("GET", "/v1/manifest", undefined, Manifest);
  }

  /** A snapshot (or what builds it, once the body budget has room for a body of its route's last size). */
  reconcile(controller: string, request: Deferred<unknown>): Promise<Plan> {
    return this.#bulk(`/v1/reconcile/${encodeURIComponent(controller)}`, request, Plan);
  }

  events(controller: string, batch: Deferred<unknown>): Promise<Plan> {
    return this.#bulk(`/v1/events/${encodeURIComponent(controller)}`, batch, Plan);
  }

  /**
   * A bulk delivery within the body budget. Room is reserved before the body is built and
   * encoded, at the size of the route's last body: 32 lanes each building a node's snapshot
   * of 1,000 pods before waiting for room held 32 snapshots, strings and buffers at once (the
   * relay's peak RSS at 100,000 pods ~40 MiB over its lists' peak; 4 lanes: ~20). A body
   * larger than reserved gives the reservation back and waits for its real size.
   */
  async #bulk<T>(path: string, body: Deferred<unknown>, schema: z.ZodType<T>): Promise<T> {
    const reserved = this.#lastBytes.get(path) ?? FIRST_BODY_ESTIMATE;
    let release = await this.#bodies.acquire(reserved);
    try {
      const value: unknown = typeof body === "function" ? (body as () => unknown)() : body;
      // Encoded once: the signature and the request both read these bytes, and the string is garbage at once.
      const bytes = Buffer.from(JSON.stringify(value));
      this.#lastBytes.set(path, bytes.length);
      if (bytes.length > reserved) {
        release();
        release = await this.#bodies.acquire(bytes.length);
      }
      return await this.#send("POST", path, bytes, schema, this.#timeoutMs, undefined, undefined);
    } finally {
      release();
    }
  }

  admission(webhook: string, review: unknown, timeoutMs: number): Promise<AdmissionReviewResponse> {
    return this.#call("POST", `/v1/admission/${encodeURIComponent(webhook)}`, review, AdmissionReviewResponse, timeoutMs);
  }

  api(name: string, request: unknown, timeoutMs: number): Promise<ApiResponse> {
    return this.#call("POST", `/v1/api/${encodeURIComponent(name)}`, request, ApiResponse, timeoutMs);
  }

  /** Hands back the claim tokens of actions that were not applied, so the ledger drops those claims. */
  releaseClaims(claims: readonly ClaimToken[]): Promise<ClaimReleased> {
    return this.#call("POST", "/v1/claims/release", { claims, now: new Date().toISOString() }, ClaimReleased);
  }

  /** Reads the outbox after `cursor` (acknowledging all up to it), signed at a fresh second (see `#freshSecond`). */
  async outbox(cursor: string, waitSeconds: number, signal?: AbortSignal): Promise<OutboxBatch> {
    const target = `/v1/outbox?cursor=${encodeURIComponent(cursor)}&wait=${waitSeconds}`;
    const at = await this.#freshSecond("outbox", target, signal);
    return this.#call("GET", target, undefined, OutboxBatch, (waitSeconds + 10) * 1000, signal, at);
  }

  /** A peer of channel `name` connected: the Worker queues its whole state and answers the sequence it starts at. */
  channelConnect(name: string, request: ChannelConnect, signal?: AbortSignal): Promise<ChannelConnected> {
    return this.#call("POST", `/v1/channels/${encodeURIComponent(name)}/connect`, request, ChannelConnected, this.#timeoutMs, signal);
  }

  /**
   * Acknowledges channel `name`'s feed up to the request's cursor, reports the completed
   * writes and long-polls for the frames after it, signed at a fresh second: an empty poll
   * sends the same body again.
   */
  async channelFeed(name: string, request: ChannelFeedRequest, signal?: AbortSignal): Promise<ChannelFeed> {
    const path = `/v1/channels/${encodeURIComponent(name)}/feed`;
    const bytes = Buffer.from(JSON.stringify(request));
    const at = await this.#freshSecond(path, bytes.toString("utf8"), signal);
    return this.#send("POST", path, bytes, ChannelFeed, (request.waitSeconds + 10) * 1000, signal, at);
  }

  /** One frame a peer of channel `name` sent; the answer says whether it was accepted and what to apply. */
  channelReceive(name: string, request: ChannelReceive, signal?: AbortSignal): Promise<ChannelReceiveAnswer> {
    return this.#call("POST", `/v1/channels/${encodeURIComponent(name)}/receive`, request, ChannelReceiveAnswer, this.#timeoutMs, signal);
  }

  /**
   * The second to sign a repeatable read at. The Worker refuses a state-changing request
   * whose signature it has seen (a replay), and a signature repeats when the same request
   * is signed within the same second (a retry after a quick failure, an empty long-poll
   * answered at once), so a repeat waits for the next second instead. That wait is one
   * second at most: after the wall clock stepped back, waiting for the wall clock to reach
   * the last second signed stalled the outbox and the channel feeds for the whole step.
   */
  async #freshSecond(route: string, request: string, signal: AbortSignal | undefined): Promise<number> {
    let at = Math.floor(Date.now() / 1000);
    const last = this.#lastSigned.get(route);
    if (last?.request === request && last.at >= at) {
      at = last.at + 1;
      await sleep(Math.min(1_000, Math.max(0, at * 1000 - Date.now())), undefined, signal ? { signal } : {});
    }
    this.#lastSigned.set(route, { request, at });
    return at;
  }

  /**
   * The signed readiness call: resolves when the signature was good and each Durable
   * Object namespace answered; a `StatusError` otherwise (status 0: no answer). Signed at
   * a fresh second, as it repeats (see `#freshSecond`).
   */
  async readiness(): Promise<Readiness> {
    const at = await this.#freshSecond("readiness", READINESS_PATH, undefined);
    return this.#call("GET", READINESS_PATH, undefined, Readiness, READINESS_TIMEOUT_MS, undefined, at);
  }

  /** Whether the Worker answers its health check. */
  async healthy(): Promise<boolean> {
    try {
      const response = await this.#transport(`${this.#base}/healthz`, { method: "GET", headers: {}, signal: AbortSignal.timeout(5_000), timeoutMs: 5_000 });
      await response.text();
      return response.status >= 200 && response.status < 300;
    } catch {
      return false;
    }
  }

  async #call<T>(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    schema: z.ZodType<T>,
    timeoutMs = this.#timeoutMs,
    signal?: AbortSignal,
    atSeconds?: number,
  ): Promise<T> {
    const bytes = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return this.#send(method, path, bytes, schema, timeoutMs, signal, atSeconds);
  }

  async #send<T>(method: "GET" | "POST", path: string, bytes: Uint8Array<ArrayBuffer> | undefined, schema: z.ZodType<T>, timeoutMs: number, signal: AbortSignal | undefined, atSeconds: number | undefined): Promise<T> {
    // Signed when sent, not when queued behind the budget.
    const headers = await this.#sign({ method, target: path, body: bytes ?? EMPTY }, atSeconds ?? Date.now() / 1000);
    let response: WorkerResponse;
    try {
      response = await this.#transport(`${this.#base}${path}`, {
        method,
        headers: { ...headers, ...(bytes === undefined ? {} : { "content-type": "application/json" }) },
        ...(bytes === undefined ? {} : { body: bytes }),
        ...(signal ? { signal } : {}),
        timeoutMs,
      });
    } catch (error) {
      throw unreachable(error);
    }
    const text = await response.text().catch((error: unknown) => {
      throw unreachable(error);
    });
    if (response.status < 200 || response.status >= 300) {
      const retryAfter = Number(response.headers.get("retry-after"));
      throw new StatusError(response.status, errorCode(text), `worker answered ${response.status}: ${text.slice(0, 300)}`, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined);
    }
    const parsed = schema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new StatusError(502, "BadAnswer", `worker answer does not match the protocol: ${parsed.error.issues[0]?.message ?? ""} at ${parsed.error.issues[0]?.path.join(".") ?? ""}`);
    return parsed.data;
  }
}

/**
 * Whether a failed call means the Worker is away, not that it refused: no answer at all
 * (status 0: unreachable, a timeout, a reset mid-body), or a 5xx that is not the Worker's
 * own error body (an edge's answer for a Worker over its limits or down). The Worker's
 * own 5xx (`internal`, `not_ready`) is an answer: one parent's bug never reads as an outage.
 */
export function workerAway(error: unknown): boolean {
  return error instanceof StatusError && (error.status === 0 || (error.status >= 500 && error.reason === "Unknown"));
}

/** A call that got no answer (status 0). */
function unreachable(error: unknown): StatusError {
  return new StatusError(0, "Unreachable", `worker unreachable: ${(error as Error).message}`);
}

/** The `code` of the Worker's error body (`functions/http/errors.ts`), or `Unknown` for any other answer. */
function errorCode(text: string): string {
  try {
    const body = ErrorBody.safeParse(JSON.parse(text));
    return body.success ? body.data.error.code : "Unknown";
  } catch {
    return "Unknown";
  }
}
