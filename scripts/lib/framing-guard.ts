/**
 * A Node HTTP front before the local workerd: workerd's HTTP parser (kj) answers a
 * malformed `Content-Length` (`abc`, `2, 3`) or an unknown `Transfer-Encoding` (`gzip`)
 * with a 500, thrown before the Worker's code runs, where no route can catch it (issue 28;
 * workerd has no setting for it). Node's parser (llhttp) refuses each of them: the guard
 * answers those with a JSON 400 naming the header and passes every well-framed request
 * through, streamed both ways, on kept-alive connections. On Cloudflare the edge parses
 * the request before the Worker; this is the local stack's (`npm start`) counterpart, and
 * like the edge it keeps an idle client connection 400 s.
 */
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { capConnections, CONNECTION_LIMITS, serverLimits } from "../../cli/http-limits.ts";

/** Headers of one hop only (RFC 9110 7.6.1): never forwarded. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer", "host"]);

/** The header a framing error of Node's parser is about: named in the 400. */
function fieldOf(code: string | undefined): string {
  if (code === "HPE_INVALID_CONTENT_LENGTH" || code === "HPE_UNEXPECTED_CONTENT_LENGTH") return "content-length";
  if (code === "HPE_INVALID_TRANSFER_ENCODING" || code === "HPE_INVALID_CHUNK_SIZE") return "transfer-encoding";
  return "";
}

/** The raw answer to a request Node's parser refused: a 400 (431 for headers too large) naming the field, then the connection closes. */
export function framingErrorResponse(error: NodeJS.ErrnoException & { readonly reason?: string }): string {
  const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
  const body = JSON.stringify({ error: { code: tooLarge ? "headers_too_large" : "bad_framing", message: `malformed HTTP request: ${error.reason ?? error.message}`, path: fieldOf(error.code) } });
  const status = tooLarge ? "431 Request Header Fields Too Large" : "400 Bad Request";
  return `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

function forwardable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

/** A running guard. */
export interface FramingGuard {
  /** `http://127.0.0.1:<port>`: what clients are given instead of workerd's own address. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The front keeps an idle client connection 400 s, as Cloudflare's edge keeps one from a
 * client (workerd closes its own after 5 s): a relay in front of it keeps its connections
 * as it would in front of Cloudflare, and the guard's own connections to workerd are
 * opened again when workerd has closed them (a loopback connect, not a round trip across
 * the internet).
 */
const EDGE_LIMITS = { ...CONNECTION_LIMITS, keepAliveTimeoutMs: 400_000 };

/** Errors of reaching workerd at all (as opposed to workerd closing on a request it had begun to read). */
const UNREACHABLE = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT", "EADDRNOTAVAIL"]);

/**
 * The request target in origin form: an absolute-form target (`http://host/path`), which
 * a server must accept (RFC 9112 3.2.2) but workerd's URL parser throws on (a 500), is
 * reduced to its path and query; undefined for a target that is neither.
 */
export function originForm(target: string): string | undefined {
  if (target.startsWith("/")) return target;
  try {
    const url = new URL(target);
    return url.protocol === "http:" || url.protocol === "https:" ? `${url.pathname}${url.search}` : undefined;
  } catch {
    return undefined;
  }
}

/** Bodies up to the Worker's limit (8 MiB) and one byte are read whole before they are sent on, in one write. */
const WHOLE_BODY_BYTES = 8 * 1024 * 1024 + 1;

/** A request's body: whole, or its first part and the stream of the rest (beyond the Worker's limit). */
type Body = { readonly whole: Buffer } | { readonly head: Buffer; readonly rest: IncomingMessage };

/**
 * Reads the request's body whole when it is within the Worker's limit, as a client
 * writing straight to workerd sends it: streamed on in pieces, a body workerd answers
 * without reading (a wrong route, a bad signature) had its socket reset under the
 * answer, which was lost with it. A whole body can also be sent again (see `forward`).
 * Undefined when the client went away before its body ended.
 */
function readBody(request: IncomingMessage): Promise<Body | undefined> {
  return new Promise((resolve) => {
    // A client gone before its body ended: nothing to send on.
    request.once("close", () => (request.complete ? undefined : resolve(undefined)));
    const chunks: Buffer[] = [];
    let size = 0;
    const onEnd = (): void => resolve({ whole: Buffer.concat(chunks) });
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      size += chunk.length;
      if (size <= WHOLE_BODY_BYTES) return;
      request.off("data", onData).off("end", onEnd).pause();
      resolve({ head: Buffer.concat(chunks), rest: request });
    };
    request.on("data", onData).on("end", onEnd);
  });
}

function answerJson(response: ServerResponse, status: number, code: string, message: string, path: string): void {
  const body = JSON.stringify({ error: { code, message, path } });
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
}

/**
 * Serves on 127.0.0.1:`port` (0 picks one) in front of `target` (workerd's origin). Long
 * polls pass (no timeout on an answer; the connection limits bound only the request).
 * workerd answers some requests before reading their body (a bad signature, a declared
 * length over its limit) and then closes: that answer is passed on, and a close before
 * any answer closes the client's connection too, as workerd would have, rather than
 * turning it into a 502; only a workerd that cannot be reached is a 502.
 */
export async function startFramingGuard(target: string, port: number): Promise<FramingGuard> {
  const origin = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const forward = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = originForm(request.url ?? "/");
    if (path === undefined) return answerJson(response, 400, "bad_framing", `malformed HTTP request: the target ${JSON.stringify((request.url ?? "").slice(0, 100))} is neither a path nor an http URL`, "request-target");
    const body = await readBody(request);
    if (body === undefined) return;
    const send = (mayRetry: boolean): void => {
      const out = httpRequest({ host: origin.hostname, port: origin.port, method: request.method, path, headers: { ...forwardable(request.headers), host: origin.host }, agent });
      let answered = false;
      out.on("response", (answer) => {
        answered = true;
        response.writeHead(answer.statusCode ?? 502, forwardable(answer.headers));
        answer.on("error", () => response.destroy());
        answer.pipe(response);
      });
      out.on("error", (error: NodeJS.ErrnoException) => {
        // An answer came first: the body workerd no longer read does not change it.
        if (answered) return;
        // workerd closed a kept-alive connection as this request went out on it: once more, on a new one (Node's documented remedy).
        if (mayRetry && out.reusedSocket && error.code === "ECONNRESET" && "whole" in body) return send(false);
        if (response.headersSent || !UNREACHABLE.has(error.code ?? "")) return void response.destroy();
        answerJson(response, 502, "worker_unreachable", `workerd: ${String(error)}`, "");
      });
      response.on("close", () => {
        if (!response.writableFinished) out.destroy();
      });
      if ("whole" in body) return void out.end(body.whole);
      out.write(body.head);
      body.rest.pipe(out);
      body.rest.resume();
    };
    send(true);
  };
  const server = capConnections(createServer(serverLimits(EDGE_LIMITS), (request, response) => void forward(request, response)), EDGE_LIMITS);
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    if (socket.writable) socket.end(framingErrorResponse(error));
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  let closed: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    agent.destroy();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => (closed ??= close()),
  };
}
