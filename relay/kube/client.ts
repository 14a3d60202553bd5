/**
 * A small REST client: client-node's KubeConfig authenticates (token, client
 * certificates, exec plugins, TLS), and undici's `request` carries the call. Any kind by
 * apiVersion/kind, with resource names found by discovery.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { HttpMethod, RequestContext } from "@kubernetes/client-node/dist/gen/http/http.js";
import { request as httpRequest, type Dispatcher } from "undici";
import type { TypeRef } from "../../protocol/index.ts";

/** A failed API call, with the Kubernetes `Status` message and code. */
export class KubeError extends Error {
  readonly status: number;
  readonly reason: string;
  constructor(status: number, reason: string, message: string) {
    super(message);
    this.status = status;
    this.reason = reason;
  }
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

  constructor(kc: KubeConfig) {
    this.#kc = kc;
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error("the kubeconfig has no current cluster");
    this.#server = cluster.server.replace(/\/$/, "");
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
    const path = type.apiVersion.includes("/") ? `/apis/${type.apiVersion}` : `/api/${type.apiVersion}`;
    const list = (await this.request("GET", path)) as { resources?: { name: string; kind: string; namespaced: boolean }[] };
    for (const r of list.resources ?? []) {
      if (!r.name.includes("/")) this.#resources.set(`${type.apiVersion}|${r.kind}`, { plural: r.name, namespaced: r.namespaced });
    }
    const found = this.#resources.get(key);
    if (!found) throw new KubeError(404, "NotFound", `the server has no resource for ${type.kind} in ${type.apiVersion}`);
    return found;
  }

  /** The REST path of a collection or an object (and subresource). */
  async path(type: TypeRef, namespace: string | undefined, name?: string, subresource?: string): Promise<string> {
    const info = await this.resource(type);
    const base = type.apiVersion.includes("/") ? `/apis/${type.apiVersion}` : `/api/${type.apiVersion}`;
    const ns = info.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
    return `${base}${ns}/${info.plural}${name ? `/${encodeURIComponent(name)}` : ""}${subresource ? `/${subresource}` : ""}`;
  }

  /**
   * The KubeConfig's authentication, reused for {@link AUTH_TTL_MS}. client-node builds a
   * new TLS Agent on every call (so every request opened a new connection): the first
   * Agent and its connection pool are kept, since the TLS settings are fixed for a client.
   */
  async #authentication(fresh: boolean): Promise<Auth> {
    if (!fresh && this.#auth && Date.now() - this.#auth.at < AUTH_TTL_MS) return this.#auth;
    const context = new RequestContext(this.#server, HttpMethod.GET);
    await this.#kc.applySecurityAuthentication(context);
    const dispatcher = this.#auth?.dispatcher ?? (context.getDispatcher() as Dispatcher | undefined);
    this.#auth = { headers: context.getHeaders(), dispatcher, at: Date.now() };
    return this.#auth;
  }

  /** One request; resolves with the parsed JSON body, throws `KubeError` for non-2xx. */
  async request(method: Method, path: string, options: RequestOptions = {}): Promise<unknown> {
    const url = new URL(`${this.#server}${path}`);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    let response = await this.#send(method, url, body, options, await this.#authentication(false));
    // A rotated or expired token: ask the KubeConfig again, once.
    if (response.status === 401) response = await this.#send(method, url, body, options, await this.#authentication(true));
    let json: unknown = undefined;
    try {
      json = response.text ? JSON.parse(response.text) : undefined;
    } catch {
      json = undefined;
    }
    if (response.status >= 200 && response.status < 300) return json;
    const status = (json ?? {}) as { message?: string; reason?: string };
    throw new KubeError(response.status, status.reason ?? "Unknown", status.message ?? response.text.slice(0, 300));
  }

  async #send(method: Method, url: URL, body: string | undefined, options: RequestOptions, auth: Auth): Promise<{ status: number; text: string }> {
    const timeout = options.timeoutMs ?? 30_000;
    const headers = { ...auth.headers, accept: "application/json", ...(body === undefined ? {} : { "content-type": options.contentType ?? "application/json" }) };
    const response = await httpRequest(url, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      ...(auth.dispatcher ? { dispatcher: auth.dispatcher } : {}),
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    return { status: response.statusCode, text: await response.body.text() };
  }
}
