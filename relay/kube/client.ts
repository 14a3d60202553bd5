/**
 * A small REST client: client-node's KubeConfig authenticates (token, client
 * certificates, exec plugins, TLS), and undici's `request` carries the call. Any kind by
 * apiVersion/kind, with resource names found by discovery.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { HttpMethod, RequestContext } from "@kubernetes/client-node/dist/gen/http/http.js";
import { request as httpRequest, type Dispatcher } from "undici";
import { StatusError, type TypeRef } from "../../protocol/index.ts";
import { groupOf } from "../../protocol/kube/api-version.ts";

/**
 * How many times one request is sent again after a 429, or a 5xx carrying `Retry-After`,
 * waiting as told each time: client-go's default (`rest.Request`'s `maxRetries`, 10).
 */
export const RETRY_AFTER_RETRIES = 10;

/**
 * The wait (ms) a `Retry-After` header asks for on a response of `status`, as client-go's
 * `checkWait` reads it: only on 429 and 5xx, whole seconds (an HTTP date is not used by
 * kube-apiserver); `undefined` when the response asks for no retry.
 */
export function retryAfterMs(status: number, header: string | string[] | undefined): number | undefined {
  if (status !== 429 && (status < 500 || status > 599)) return undefined;
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value) * 1000;
}

/** Told of every request the relay's Kubernetes clients send (`rest_client_requests_total`, `rest_client_request_duration_seconds`). */
export interface RequestMetrics {
  /** One request sent: its HTTP method, the server's `host:port`, and the status code or `<error>` when none came. */
  request(method: string, host: string, code: string): void;
  /** One call's whole time in seconds, its retries included, until its answer was read (client-go's `Request.request`; watches are not timed, as there). */
  latency(verb: string, host: string, seconds: number): void;
}

/** The REST path of an API group version: `/api/v1` for the core group, `/apis/<group>/<version>` for the others. */
function groupVersionPath(apiVersion: string): string {
  return groupOf(apiVersion) === "" ? `/api/${apiVersion}` : `/apis/${apiVersion}`;
}

/** Client settings beyond the KubeConfig. */
export interface KubeClientOptions {
  /** Retries after `Retry-After` (default {@link RETRY_AFTER_RETRIES}; 0: none, the error carries the wait). */
  readonly retryAfterRetries?: number;
  /** How a wait is waited (tests pass a fake). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Told of every request sent (`rest_client_requests_total`). */
  readonly requests?: RequestMetrics;
}

/** A resource as discovery describes it. */
export interface ResourceInfo {
  readonly plural: string;
  readonly namespaced: boolean;
}

/** Request options. */
export interface RequestOptions {
  readonly body?: unknown;
  readonly contentType?: string;
  readonly query?: Record<string, string | undefined>;
  readonly timeoutMs?: number;
}

/** The HTTP methods the API uses. */
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** How long authentication headers are reused before the KubeConfig is asked again. */
const AUTH_TTL_MS = 10_000;

/** What the KubeConfig adds to a request: headers (a bearer token) and a TLS dispatcher. */
interface Auth {
  readonly headers: Record<string, string>;
  readonly dispatcher: Dispatcher | undefined;
  readonly at: number;
}

/** The client. */
export class KubeClient {
  readonly #kc: KubeConfig;
  readonly #resources = new Map<string, ResourceInfo>();
  readonly #server: string;
  #auth: Auth | undefined;
  readonly #retryAfterRetries: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #requests: RequestMetrics | undefined;

  constructor(kc: KubeConfig, options: KubeClientOptions = {}) {
    this.#kc = kc;
    this.#retryAfterRetries = options.retryAfterRetries ?? RETRY_AFTER_RETRIES;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#requests = options.requests;
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error("the kubeconfig has no current cluster");
    this.#server = cluster.server.replace(/\/$/, "");
  }

  /** Counts a request to this client's server sent by another client (client-node's watch), as {@link request}'s are. */
  countRequest(method: Method, code: string): void {
    this.#requests?.request(method, new URL(this.#server).host, code);
  }

  /** Teaches the client a resource without discovery (from the manifest). */
  learn(type: TypeRef, info: ResourceInfo): void {
    this.#resources.set(`${type.apiVersion}|${type.kind}`, info);
  }

  /** Plural and scope of a kind (discovery, cached). */
  async resource(type: TypeRef): Promise<ResourceInfo> {
    const key = `${type.apiVersion}|${type.kind}`;
    const known = this.#resources.get(key);
    if (known) return known;
    const list = (await this.request("GET", groupVersionPath(type.apiVersion))) as { resources?: { name: string; kind: string; namespaced: boolean }[] };
    for (const r of list.resources ?? []) {
      if (!r.name.includes("/")) this.#resources.set(`${type.apiVersion}|${r.kind}`, { plural: r.name, namespaced: r.namespaced });
    }
    const found = this.#resources.get(key);
    if (!found) throw new StatusError(404, "NotFound", `the server has no resource for ${type.kind} in ${type.apiVersion}`);
    return found;
  }

  /** The REST path of a collection or an object (and subresource). */
  async path(type: TypeRef, namespace: string | undefined, name?: string, subresource?: string): Promise<string> {
    const info = await this.resource(type);
    const base = groupVersionPath(type.apiVersion);
    const ns = info.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
    return `${base}${ns}/${info.plural}${name ? `/${encodeURIComponent(name)}` : ""}${subresource ? `/${subresource}` : ""}`;
  }

  /**
   * The KubeConfig's authentication, reused for {@link AUTH_TTL_MS}. client-node builds a
   * new TLS Agent on every call (so every request opened a new connection): the first
   * Agent and its connection pool are kept, since the TLS settings are fixed for a client.
   */
  async #authentication(fresh: boolean): Promise<Auth> {
    // Monotonic: a wall clock stepped back kept an expiring token for as long as the step.
    if (!fresh && this.#auth && performance.now() - this.#auth.at < AUTH_TTL_MS) return this.#auth;
    const context = new RequestContext(this.#server, HttpMethod.GET);
    await this.#kc.applySecurityAuthentication(context);
    const dispatcher = this.#auth?.dispatcher ?? (context.getDispatcher() as Dispatcher | undefined);
    this.#auth = { headers: context.getHeaders(), dispatcher, at: performance.now() };
    return this.#auth;
  }

  /** One request; resolves with the parsed JSON body, throws `StatusError` for non-2xx. */
  async request(method: Method, path: string, options: RequestOptions = {}): Promise<unknown> {
    const url = new URL(`${this.#server}${path}`);
    const started = performance.now();
    try {
      return await this.#call(method, url, options);
    } finally {
      this.#requests?.latency(method, url.host, (performance.now() - started) / 1000);
    }
  }

  async #call(method: Method, url: URL, options: RequestOptions): Promise<unknown> {
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    let response = await this.#send(method, url, body, options, await this.#authentication(false));
    // A rotated or expired token: ask the KubeConfig again, once.
    if (response.status === 401) response = await this.#send(method, url, body, options, await this.#authentication(true));
    // Told to come back later (429, or a 5xx with Retry-After): not before then, as client-go does.
    for (let retry = 0; retry < this.#retryAfterRetries; retry++) {
      const wait = retryAfterMs(response.status, response.retryAfter);
      if (wait === undefined) break;
      await this.#sleep(wait);
      response = await this.#send(method, url, body, options, await this.#authentication(false));
    }
    let json: unknown = undefined;
    try {
      json = response.text ? JSON.parse(response.text) : undefined;
    } catch {
      json = undefined;
    }
    if (response.status >= 200 && response.status < 300) return json;
    const status = (json ?? {}) as { message?: string; reason?: string };
    throw new StatusError(response.status, status.reason ?? "Unknown", status.message ?? response.text.slice(0, 300), retryAfterMs(response.status, response.retryAfter));
  }

  async #send(method: Method, url: URL, body: string | undefined, options: RequestOptions, auth: Auth): Promise<{ status: number; text: string; retryAfter: string | string[] | undefined }> {
    const timeout = options.timeoutMs ?? 30_000;
    const headers = { ...auth.headers, accept: "application/json", ...(body === undefined ? {} : { "content-type": options.contentType ?? "application/json" }) };
    const response = await httpRequest(url, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      ...(auth.dispatcher ? { dispatcher: auth.dispatcher } : {}),
      headersTimeout: timeout,
      bodyTimeout: timeout,
    }).catch((error: unknown) => {
      // No answer: client-go counts it as code "<error>".
      this.#requests?.request(method, url.host, "<error>");
      throw error;
    });
    this.#requests?.request(method, url.host, String(response.statusCode));
    return { status: response.statusCode, text: await response.body.text(), retryAfter: response.headers["retry-after"] };
  }
}
