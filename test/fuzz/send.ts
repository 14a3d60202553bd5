/**
 * Sends one bad request over a fresh connection (so a reset is this request's, not a
 * pooled socket's) and says what came of it: a status, or a crash (reset, refused, timed
 * out, closed without an answer). Signs requests to the Worker as each `Signing` says.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { createSigner, SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../../protocol/index.ts";
import type { Outcome } from "./counting.ts";
import type { FuzzRequest } from "./generators.ts";

/** Where to send: an origin, and the CA to trust for https. */
export interface Endpoint {
  readonly origin: string;
  readonly caPem?: string;
}

/** What came back: the outcome and the start of the answer's body (for examples). */
export interface Answer {
  readonly outcome: Outcome;
  readonly text: string;
}

/** How long one request may take before it counts as a hang (a crash of the surface). */
export const REQUEST_TIMEOUT_MS = 30_000;

/** Sends raw bytes with `headers`; never rejects. */
export function sendRaw(endpoint: Endpoint, method: string, target: string, headers: Record<string, string>, body: Uint8Array, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Answer> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: Answer): void => {
      if (settled) return;
      settled = true;
      resolve(answer);
    };
    // The target goes on the request line as it is (`//`, `/%ZZ`): never resolved as a URL.
    const origin = new URL(endpoint.origin);
    const options = { method, hostname: origin.hostname, port: origin.port, path: target, agent: false as const, headers: { ...headers, "content-length": String(body.byteLength), connection: "close" }, timeout: timeoutMs, ...(endpoint.caPem ? { ca: endpoint.caPem } : {}) };
    let answered: number | undefined;
    const onResponse = (response: IncomingMessage): void => {
      const status = response.statusCode ?? 0;
      answered = status;
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        if (size < 2048) chunks.push(chunk);
        size += chunk.length;
      });
      // A server that answers, then drops the rest of an oversized body, answered.
      const finish = (): void => done({ outcome: { kind: "status", status }, text: Buffer.concat(chunks).toString("utf8").slice(0, 2048) });
      response.on("end", finish);
      response.on("error", finish);
      response.on("close", finish);
    };
    let client;
    try {
      client = origin.protocol === "https:" ? httpsRequest(options, onResponse) : httpRequest(options, onResponse);
    } catch (error) {
      // The client refused to send it (a header or path Node will not write): not the server's doing.
      done({ outcome: { kind: "status", status: 400 }, text: `not sent: ${(error as Error).message}` });
      return;
    }
    client.on("timeout", () => {
      done({ outcome: { kind: "crash", reason: `no answer within ${timeoutMs} ms` }, text: "" });
      client.destroy();
    });
    // Once a status line arrived the server answered, whatever happens to the socket after.
    client.on("error", (error: NodeJS.ErrnoException) => done(answered === undefined ? { outcome: { kind: "crash", reason: error.code ?? error.message }, text: "" } : { outcome: { kind: "status", status: answered }, text: "" }));
    client.on("close", () => done(answered === undefined ? { outcome: { kind: "crash", reason: "closed without an answer" }, text: "" } : { outcome: { kind: "status", status: answered }, text: "" }));
    client.end(body);
  });
}

/** Signs and sends Worker requests under the stack's secret (and a wrong one, for `wrong-secret`). */
export interface RequestSender {
  /** Sends `request`; a replayed one is sent twice and both answers are returned. */
  send(endpoint: Endpoint, request: FuzzRequest): Promise<Answer[]>;
}

/** A sender signing with `secret`; `nowSeconds` is the Worker's clock (the machine's). */
export function requestSender(secret: string, nowSeconds: () => number = () => Date.now() / 1000): RequestSender {
  const sign = createSigner(secret);
  const wrong = createSigner(`${secret}-not`);
  const headersOf = async (request: FuzzRequest): Promise<Record<string, string>> => {
    const base: Record<string, string> = request.contentType === undefined ? {} : { "content-type": request.contentType };
    const signed = { method: request.method, target: request.target, body: request.body };
    switch (request.signing) {
      case "none":
        return base;
      case "garbage":
        return { ...base, [TIMESTAMP_HEADER]: "yesterday", [SIGNATURE_HEADER]: `sha256=${"Z".repeat(64)}` };
      case "stale":
        return { ...base, ...(await sign(signed, nowSeconds() - 3600)) };
      case "wrong-secret":
        return { ...base, ...(await wrong(signed, nowSeconds())) };
      case "valid":
      case "replay":
        return { ...base, ...(await sign(signed, nowSeconds())) };
    }
  };
  return {
    async send(endpoint, request) {
      let headers: Record<string, string>;
      try {
        headers = await headersOf(request);
      } catch {
        // A target the signer refuses (it holds a newline): sent unsigned.
        headers = request.contentType === undefined ? {} : { "content-type": request.contentType };
      }
      const first = await sendRaw(endpoint, request.method, request.target, headers, request.body);
      if (request.signing !== "replay") return [first];
      return [first, await sendRaw(endpoint, request.method, request.target, headers, request.body)];
    },
  };
}
