/**
 * One API server as the conformance runner talks to it: raw requests (status and parsed
 * body, nothing retried, nothing interpreted) and watches read as a list of events. The
 * sim is plain HTTP; the real control plane is HTTPS with the admin client certificate
 * of its kubeconfig.
 */
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";

/** One request as a scenario step states it (query values already substituted). */
export interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly contentType?: string;
  /** Default application/json; kubectl get asks for `application/json;as=Table;v=v1;g=meta.k8s.io`. */
  readonly accept?: string;
}

/** What came back: the status code and the body, parsed when it was JSON. */
export interface RawResponse {
  readonly status: number;
  readonly body: unknown;
}

/** A watch's answer: the status code, then every event it sent before it ended or was cut off. */
export interface WatchResponse {
  readonly status: number;
  /** The body when the answer was no stream (an error Status). */
  readonly body?: unknown;
  readonly events: readonly unknown[];
}

/** How a watch is read: until `count` events came (or the server ended it), at most `timeoutMs`. */
export interface WatchLimit {
  readonly count: number;
  readonly timeoutMs: number;
}

const Kubeconfig = z.object({
  clusters: z.array(z.object({ cluster: z.object({ server: z.string(), "certificate-authority-data": z.string() }) })).min(1),
  users: z.array(z.object({ user: z.object({ "client-certificate-data": z.string(), "client-key-data": z.string() }) })).min(1),
});

/** An API server to send scenario requests to. */
export class Endpoint {
  readonly name: string;
  readonly url: URL;
  readonly #agent: HttpAgent | HttpsAgent;

  private constructor(name: string, url: string, agent: HttpAgent | HttpsAgent) {
    this.name = name;
    this.url = new URL(url);
    this.#agent = agent;
  }

  /** Plain HTTP (the sim). */
  static plain(name: string, url: string): Endpoint {
    return new Endpoint(name, url, new HttpAgent({ keepAlive: true }));
  }

  /** HTTPS with the client certificate and CA of a kubeconfig (the real control plane's admin). */
  static fromKubeconfig(name: string, path: string): Endpoint {
    const config = Kubeconfig.parse(parseYaml(readFileSync(path, "utf8")));
    const cluster = config.clusters[0]?.cluster;
    const user = config.users[0]?.user;
    if (!cluster || !user) throw new Error(`${path}: no cluster or user`);
    const decode = (b64: string): string => Buffer.from(b64, "base64").toString("utf8");
    const agent = new HttpsAgent({ keepAlive: true, ca: decode(cluster["certificate-authority-data"]), cert: decode(user["client-certificate-data"]), key: decode(user["client-key-data"]) });
    return new Endpoint(name, cluster.server, agent);
  }

  /** Sends one request and reads the whole answer. */
  async request(request: RawRequest, timeoutMs = 30_000): Promise<RawResponse> {
    const response = await this.#send(request, timeoutMs);
    const text = await readAll(response);
    return { status: response.statusCode ?? 0, body: parseJson(text) };
  }

  /** Opens a watch and reads events until `limit` (the request's query should hold `watch`). */
  async watch(request: RawRequest, limit: WatchLimit): Promise<WatchResponse> {
    const response = await this.#send(request, limit.timeoutMs + 5_000);
    const status = response.statusCode ?? 0;
    if (status !== 200) return { status, body: parseJson(await readAll(response)), events: [] };
    return new Promise((resolve) => {
      const events: unknown[] = [];
      let buffered = "";
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        response.destroy();
        // A plain list where a stream was asked for (a misread `watch` parameter) is a body, not an event.
        const [only] = events;
        if (events.length === 1 && typeof only === "object" && only !== null && !("type" in only)) resolve({ status, body: only, events: [] });
        else resolve({ status, events });
      };
      const timer = setTimeout(finish, limit.timeoutMs);
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        buffered += chunk;
        let newline = buffered.indexOf("\n");
        while (newline >= 0) {
          const line = buffered.slice(0, newline).trim();
          buffered = buffered.slice(newline + 1);
          if (line !== "") events.push(parseJson(line));
          if (events.length >= limit.count) return finish();
          newline = buffered.indexOf("\n");
        }
      });
      response.on("end", () => {
        if (buffered.trim() !== "") events.push(parseJson(buffered.trim()));
        finish();
      });
      response.on("error", finish);
    });
  }

  close(): void {
    this.#agent.destroy();
  }

  #send(request: RawRequest, timeoutMs: number): Promise<IncomingMessage> {
    const url = new URL(request.path, this.url);
    for (const [key, value] of Object.entries(request.query ?? {})) url.searchParams.append(key, value);
    const body = request.body === undefined ? undefined : typeof request.body === "string" ? request.body : JSON.stringify(request.body);
    const headers: Record<string, string> = { accept: request.accept ?? "application/json" };
    if (body !== undefined) {
      headers["content-type"] = request.contentType ?? "application/json";
      // Node sends a DELETE's body unframed unless told its length.
      headers["content-length"] = String(Buffer.byteLength(body));
    }
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const outgoing = send(url, { method: request.method, headers, agent: this.#agent, timeout: timeoutMs }, resolve);
      outgoing.on("timeout", () => outgoing.destroy(new Error(`${this.name}: ${request.method} ${url.pathname} took over ${timeoutMs} ms`)));
      outgoing.on("error", reject);
      outgoing.end(body);
    });
  }
}

function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on("data", (chunk: Buffer) => chunks.push(chunk));
    response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    response.on("error", reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
