/**
 * A small REST client over client-node's transport (KubeConfig authentication, TLS,
 * undici): any kind by apiVersion/kind, with resource names found by discovery.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { HttpMethod, RequestContext } from "@kubernetes/client-node/dist/gen/http/http.js";
import { IsomorphicFetchHttpLibrary } from "@kubernetes/client-node/dist/gen/http/isomorphic-fetch.js";
import type { TypeRef } from "../../functions/protocol/index.ts";

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

const METHODS: Record<string, HttpMethod> = { GET: HttpMethod.GET, POST: HttpMethod.POST, PUT: HttpMethod.PUT, PATCH: HttpMethod.PATCH, DELETE: HttpMethod.DELETE };

/** The client. */
export class KubeClient {
  readonly #kc: KubeConfig;
  readonly #http = new IsomorphicFetchHttpLibrary();
  readonly #resources = new Map<string, ResourceInfo>();
  readonly #server: string;
  #dispatcher: ReturnType<RequestContext["getDispatcher"]>;

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
   * client-node builds a new undici Agent for every request, so every request opened a
   * new connection (and the Agent lingered). The TLS settings come from the kubeconfig,
   * fixed for this client: keep the first Agent and its connection pool.
   */
  #reuseDispatcher(context: RequestContext): void {
    const fresh = context.getDispatcher();
    if (!fresh) return;
    if (!this.#dispatcher) {
      this.#dispatcher = fresh;
      return;
    }
    // The fresh Agent never connected: dropping it is enough (closing it costs an error object).
    context.setDispatcher(this.#dispatcher);
  }

  /** One request; resolves with the parsed JSON body, throws `KubeError` for non-2xx. */
  async request(method: keyof typeof METHODS, path: string, options: RequestOptions = {}): Promise<unknown> {
    const url = new URL(`${this.#server}${path}`);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    const context = new RequestContext(url.toString(), METHODS[method] ?? HttpMethod.GET);
    context.setHeaderParam("Accept", "application/json");
    if (options.body !== undefined) {
      context.setHeaderParam("Content-Type", options.contentType ?? "application/json");
      context.setBody(JSON.stringify(options.body));
    }
    context.setSignal(AbortSignal.timeout(options.timeoutMs ?? 30_000));
    await this.#kc.applySecurityAuthentication(context);
    this.#reuseDispatcher(context);
    const response = await this.#http.send(context).toPromise();
    const text = await response.body.text();
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (response.httpStatusCode >= 200 && response.httpStatusCode < 300) return json;
    const status = (json ?? {}) as { message?: string; reason?: string };
    throw new KubeError(response.httpStatusCode, status.reason ?? "Unknown", status.message ?? text.slice(0, 300));
  }
}
