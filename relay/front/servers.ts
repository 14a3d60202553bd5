/**
 * The relay's HTTP surfaces: `/livez`, `/healthz`, `/readyz` and Prometheus `/metrics` on a plain
 * port; the in-cluster TLS front for admission webhooks (`./admission.ts`) and the
 * controllers' HTTP APIs (`./api.ts`); and a plain-HTTP API port serving those APIs
 * alone, for clients that cannot speak TLS (a training job's coordinator that calls an
 * API at `host:port`, no scheme).
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { Logger } from "../../cli/log.ts";
import { capConnections, CONNECTION_LIMITS, serverLimits, type ConnectionLimits } from "../../cli/http-limits.ts";
import type { Metrics } from "../ops/metrics.ts";
import { tooDeepReply, type Admission } from "./admission.ts";
import { jsonTooDeep } from "../../protocol/index.ts";
import { apiFor, serveApi, type ApiHost, type ApiReply } from "./api.ts";

/** One named check of `/readyz` (kube-apiserver's convention: `?exclude=<name>` leaves it out). */
export interface ReadinessCheck {
  /** `informer-sync`, `worker`. */
  readonly name: string;
  /** Why it fails; undefined when it passes. */
  readonly failure: string | undefined;
}

/** What the probes and `/metrics` read. */
export interface OpsHost {
  /** The checks `/readyz` answers from: caches synced, the Worker reachable and ready. */
  readiness(): readonly ReadinessCheck[];
  readonly metrics: Pick<Metrics, "render" | "contentType">;
}

/**
 * `/readyz`'s answer: 200 when every check not excluded passes, else 503; the body names
 * each check's outcome. The installed readiness probe excludes `worker`: a relay pod whose
 * Worker is away still serves admission (ADR 0034), and an unready pod would leave the
 * webhooks' Service without endpoints.
 */
export function readyz(checks: readonly ReadinessCheck[], query: URLSearchParams): { status: number; body: unknown } {
  const excluded = new Set(query.getAll("exclude"));
  const outcomes = Object.fromEntries(checks.map((check) => [check.name, excluded.has(check.name) ? "excluded" : (check.failure ?? "ok")]));
  const ready = checks.every((check) => excluded.has(check.name) || check.failure === undefined);
  return { status: ready ? 200 : 503, body: { ready, checks: outcomes } };
}

/** What the TLS front and the API port serve. */
export interface FrontHost {
  readonly admission: Pick<Admission, "review">;
  readonly apis: ApiHost;
}

/** A body over the limit: answered 413 (the rest of it is read and dropped, so the client gets the answer, not a reset). */
class TooLarge extends Error {}

function readBody(request: IncomingMessage, limit = 8 * 1024 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        reject(new TooLarge(`request body over ${limit} bytes`));
      } else chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function send(response: ServerResponse, status: number, body: unknown, type = "application/json"): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  response.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(text) });
  response.end(text);
}

async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/**
 * Serves liveness, health, readiness and metrics. Returns the bound port. `/livez` and
 * `/healthz` answer while the process serves at all (kube-apiserver's pair: `/healthz` kept
 * for the probes already written against it); `/readyz` also needs synced caches and the
 * Worker, each a named check (`?exclude=worker`, see {@link readyz}).
 */
export async function startOpsServer(ops: OpsHost, port: number, host: string, limits: ConnectionLimits = CONNECTION_LIMITS): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer(serverLimits(limits), (request, response) => {
    const [path, query = ""] = (request.url ?? "/").split("?");
    if (path === "/livez" || path === "/healthz") return send(response, 200, { ok: true });
    if (path === "/readyz") {
      const answer = readyz(ops.readiness(), new URLSearchParams(query));
      return send(response, answer.status, answer.body);
    }
    if (path === "/metrics") {
      ops.metrics.render().then(
        (text) => send(response, 200, text, ops.metrics.contentType),
        (error: unknown) => send(response, 500, { error: { code: "internal", message: `metrics: ${String(error)}`, path: "" } }),
      );
      return;
    }
    send(response, 404, { error: { code: "not_found", message: `no route ${path ?? ""}`, path: "path" } });
  });
  const bound = await listen(capConnections(server, limits), port, host);
  return { port: bound, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

/** Routes one request: `POST /admission/{webhook}` (the TLS front only), or a path under an API's prefix. */
async function route(front: FrontHost, method: string, url: string, body: () => Promise<string>, log: Logger, admission: boolean, authorization: string | undefined): Promise<ApiReply> {
  const path = url.split("?")[0] ?? "/";
  const hook = admission ? /^\/admission\/([a-z0-9-]+)$/.exec(path) : null;
  if (hook && method === "POST") return front.admission.review(hook[1] ?? "", await body());
  if (!admission && path === "/healthz") return { status: 200, body: { ok: true } };
  const api = apiFor(front.apis.manifest, path);
  if (!api) return { status: 404, body: { error: { code: "not_found", message: `no route ${method} ${path}`, path: "path" } } };
  const text = await body();
  // Bounded before the API parses it or the signature's JSON.stringify walks it (a stack overflow).
  const deep = jsonTooDeep(text);
  if (deep !== undefined) return tooDeepReply(deep);
  return serveApi(front.apis, api, { method, url, body: text, authorization }, log);
}

/** The request handler of a front: routes, then answers (a body it cannot read is a 400). */
function handler(front: FrontHost, log: Logger, admission: boolean): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    route(front, request.method ?? "GET", request.url ?? "/", () => readBody(request), log, admission, request.headers.authorization)
      .then((answer) => send(response, answer.status, answer.body))
      .catch((error: unknown) => (error instanceof TooLarge ? send(response, 413, { error: { code: "too_large", message: error.message, path: "" } }) : send(response, 400, { error: { code: "bad_request", message: String(error), path: "" } })));
  };
}

/** Serves the TLS front (admission webhooks and the controllers' APIs) with the given certificate files. */
export async function startFront(front: FrontHost, port: number, host: string, certFile: string, keyFile: string, log: Logger, limits: ConnectionLimits = CONNECTION_LIMITS): Promise<{ port: number; close(): Promise<void> }> {
  const server = createTlsServer({ ...serverLimits(limits), cert: readFileSync(certFile), key: readFileSync(keyFile) }, handler(front, log, true));
  return serve(capConnections(server, limits) as unknown as Server, port, host);
}

/**
 * Serves the controllers' APIs (and `/healthz`) over plain HTTP: what an in-cluster client
 * without TLS reaches through the relay Service. Admission is never served here.
 */
export async function startApiServer(front: FrontHost, port: number, host: string, log: Logger, limits: ConnectionLimits = CONNECTION_LIMITS): Promise<{ port: number; close(): Promise<void> }> {
  return serve(capConnections(createServer(serverLimits(limits), handler(front, log, false)), limits), port, host);
}

async function serve(server: Server, port: number, host: string): Promise<{ port: number; close(): Promise<void> }> {
  // closeAllConnections() misses sockets still in their TLS handshake: track raw sockets
  // so that stopping never waits for a client to give up.
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const bound = await listen(server, port, host);
  return {
    port: bound,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
