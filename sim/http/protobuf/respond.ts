/**
 * The HTTP side of protobuf: which responses were negotiated to protobuf, and writing them.
 * The server negotiates once per request (`negotiateResponse`); its one JSON writer asks
 * `sendNegotiated` first, so every answer to that request, errors included, follows.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { encodeBody } from "./encode.ts";
import { negotiate, PROTOBUF } from "./negotiate.ts";
import { messageType } from "./schema.ts";

const protobufResponses = new WeakSet<ServerResponse>();

/**
 * Negotiates the encoding of the response to a request on a resource of `typeRef` from
 * its Accept header; throws 406 when nothing acceptable can be written. Watch streams are
 * JSON only (the sim does not write protobuf watch frames).
 */
export function negotiateResponse(request: IncomingMessage, response: ServerResponse, typeRef: { apiVersion: string; kind: string }, watch: boolean): void {
  const servable = !watch && messageType(typeRef.apiVersion, typeRef.kind) !== undefined;
  if (negotiate(request.headers.accept, servable) === "protobuf") protobufResponses.add(response);
}

/** Lists arrive pre-serialized as JSON text. */
function parsedList(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Writes `body` as protobuf when that was negotiated and its kind has a definition; false when the caller should write JSON. */
export function sendNegotiated(response: ServerResponse, status: number, body: unknown): boolean {
  if (!protobufResponses.has(response)) return false;
  const object = typeof body === "string" ? parsedList(body) : body;
  if (object === null || object === undefined || typeof object !== "object" || Array.isArray(object)) return false;
  const bytes = encodeBody(object as Record<string, unknown>);
  if (!bytes) return false;
  response.writeHead(status, { "content-type": PROTOBUF, "content-length": bytes.length });
  response.end(bytes);
  return true;
}
