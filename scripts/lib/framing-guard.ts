/**
 * A Node HTTP front before the local workerd: workerd's HTTP parser (kj) answers a
 * malformed `Content-Length` (`abc`, `2, 3`) or an unknown `Transfer-Encoding` (`gzip`)
 * with a 500, thrown before the Worker's code runs, where no route can catch it (issue 28;
 * workerd has no setting for it). Node's parser (llhttp) refuses each of them: the guard
 * answers those with a JSON 400 naming the header and passes every well-framed request
 * through, streamed both ways, on kept-alive connections. On Cloudflare the edge parses
 * the request before the Worker; this is the local stack's (`npm start`) counterpart.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Pool } from "undici";
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
 * Serves on 127.0.0.1:`port` (0 picks one) in front of `target` (workerd's origin). Long
 * polls pass (no timeout on an answer; the connection limits bound only the request).
 */
export async function startFramingGuard(target: string, port: number): Promise<FramingGuard> {
  const upstream = new Pool(target, { connections: 64, headersTimeout: 0, bodyTimeout: 0 });
  const forward = (request: IncomingMessage, response: ServerResponse): void => {
    const hasBody = request.headers["content-length"] !== undefined || request.headers["transfer-encoding"] !== undefined;
    upstream
      .request({ method: request.method as "GET", path: request.url ?? "/", headers: forwardable(request.headers), ...(hasBody ? { body: request } : {}) })
      .then((answer) => {
        response.writeHead(answer.statusCode, forwardable(answer.headers as IncomingHttpHeaders));
        answer.body.pipe(response);
      })
      .catch((error: unknown) => {
        if (response.headersSent) return response.destroy();
        const body = JSON.stringify({ error: { code: "worker_unreachable", message: `workerd: ${String(error)}`, path: "" } });
        response.writeHead(502, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
      });
  };
  const server = capConnections(createServer(serverLimits(), forward), CONNECTION_LIMITS);
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
    await upstream.close();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => (closed ??= close()),
  };
}
