/**
 * The relay's HTTP surfaces: `/healthz`, `/readyz` and Prometheus `/metrics` on a plain
 * port; the in-cluster TLS front for admission webhooks, forwarded signed to the Worker,
 * answering per each webhook's failurePolicy when the Worker cannot, and for the
 * controllers' HTTP APIs (`./api.ts`); and a plain-HTTP API port serving those APIs
 * alone, for clients that cannot speak TLS (a training job's coordinator that calls an
 * API at `host:port`, no scheme).
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { AdmissionReviewRequest, type AdmissionReviewResponse, type WebhookSpec } from "../protocol/index.ts";
import { apiFor, serveApi, type ApiHost, type ApiReply } from "./api.ts";
import type { Logger } from "../cli/log.ts";
import type { RelayEngine } from "./engine.ts";
import { forwards } from "../protocol/snapshot/admission-gate.ts";
import { relatedObjects } from "../protocol/snapshot/related.ts";

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

/** Serves health, readiness and metrics. Returns the bound port. */
export async function startOpsServer(engine: RelayEngine, port: number, host: string): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path === "/healthz") return send(response, 200, { ok: true });
    if (path === "/readyz") return engine.ready() ? send(response, 200, { ready: true }) : send(response, 503, { ready: false });
    if (path === "/metrics") {
      engine.metrics.render().then(
        (text) => send(response, 200, text, engine.metrics.contentType),
        (error: unknown) => send(response, 500, { error: { code: "internal", message: `metrics: ${String(error)}`, path: "" } }),
      );
      return;
    }
    send(response, 404, { error: { code: "not_found", message: `no route ${path ?? ""}`, path: "path" } });
  });
  const bound = await listen(server, port, host);
  return { port: bound, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

/** The answer when the Worker could not decide: allowed for `Ignore`, denied for `Fail`. */
export function failureAnswer(uid: string, spec: WebhookSpec | undefined, reason: string): AdmissionReviewResponse {
  const allowed = spec?.failurePolicy === "Ignore";
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    response: { uid, allowed, ...(allowed ? { warnings: [`edgeloop webhook unavailable: ${reason}`] } : { status: { code: 500, message: `edgeloop webhook unavailable: ${reason}` } }) },
  };
}

/** Handles one forwarded admission review. */
export async function admit(engine: RelayEngine, webhook: string, body: string, log: Logger): Promise<{ status: number; body: unknown }> {
  const spec = engine.manifest.controllers.flatMap((c) => c.webhooks).find((w) => w.name === webhook);
  let review: AdmissionReviewRequest;
  try {
    review = AdmissionReviewRequest.parse({ ...(JSON.parse(body) as object), related: {} });
  } catch (error) {
    return { status: 400, body: { error: { code: "invalid", message: `not an AdmissionReview: ${(error as Error).message}`, path: "" } } };
  }
  if (!spec) return { status: 404, body: { error: { code: "unknown_webhook", message: `no webhook named ${webhook}`, path: "webhook" } } };
  if (!forwards(spec, review.request, engine.relatedCaches)) return { status: 200, body: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: review.request.uid, allowed: true } } };
  // `namedBy` paths of a webhook start from the AdmissionRequest.
  const related = relatedObjects(spec.related, { namespace: review.request.namespace, root: review.request }, engine.relatedCaches);
  try {
    return { status: 200, body: await engine.worker.admission(webhook, { ...review, related, now: new Date().toISOString() }, spec.timeoutSeconds * 1000) };
  } catch (error) {
    log("warn", "admission forwarding failed", { webhook, error: String(error), failurePolicy: spec.failurePolicy });
    return { status: 200, body: failureAnswer(review.request.uid, spec, String(error)) };
  }
}

function apiHost(engine: RelayEngine): ApiHost {
  return {
    get manifest() {
      return engine.manifest;
    },
    relatedCaches: engine.relatedCaches,
    forward: (name, request, timeoutMs) => engine.worker.api(name, request, timeoutMs),
    applyAction: (action, api, namespace) => engine.applyApiAction(action, api, namespace),
    countApiRequest: (api, status) => engine.metrics.inc(`edgeloop_api_requests_total{api="${api}",code="${status}"}`),
    releaseClaims: async (claims) => {
      await engine.worker.releaseClaims(claims);
    },
  };
}

/** Routes one request: `POST /admission/{webhook}` (the TLS front only), or a path under an API's prefix. */
async function route(engine: RelayEngine, method: string, url: string, body: () => Promise<string>, log: Logger, admission: boolean): Promise<ApiReply> {
  const path = url.split("?")[0] ?? "/";
  const hook = admission ? /^\/admission\/([a-z0-9-]+)$/.exec(path) : null;
  if (hook && method === "POST") return admit(engine, hook[1] ?? "", await body(), log);
  if (!admission && path === "/healthz") return { status: 200, body: { ok: true } };
  const api = apiFor(engine.manifest, path);
  if (api) return serveApi(apiHost(engine), api, { method, url, body: await body() }, log);
  return { status: 404, body: { error: { code: "not_found", message: `no route ${method} ${path}`, path: "path" } } };
}

/** The request handler of a front: routes, then answers (a body it cannot read is a 400). */
function handler(engine: RelayEngine, log: Logger, admission: boolean): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    route(engine, request.method ?? "GET", request.url ?? "/", () => readBody(request), log, admission)
      .then((answer) => send(response, answer.status, answer.body))
      .catch((error: unknown) => (error instanceof TooLarge ? send(response, 413, { error: { code: "too_large", message: error.message, path: "" } }) : send(response, 400, { error: { code: "bad_request", message: String(error), path: "" } })));
  };
}

/** Serves the TLS front (admission webhooks and the controllers' APIs) with the given certificate files. */
export async function startFront(engine: RelayEngine, port: number, host: string, certFile: string, keyFile: string, log: Logger): Promise<{ port: number; close(): Promise<void> }> {
  const server = createTlsServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, handler(engine, log, true));
  return serve(server as unknown as Server, port, host);
}

/**
 * Serves the controllers' APIs (and `/healthz`) over plain HTTP: what an in-cluster client
 * without TLS reaches through the relay Service. Admission is never served here.
 */
export async function startApiServer(engine: RelayEngine, port: number, host: string, log: Logger): Promise<{ port: number; close(): Promise<void> }> {
  return serve(createServer(handler(engine, log, false)), port, host);
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
