/**
 * The upstream Sedna GlobalManager ↔ LocalController message (`pkg/globalmanager/
 * messagelayer/model`, `pkg/localcontroller/gmclient`): JSON `{"header": {namespace,
 * resourceKind, resourceName, operation}, "content": <base64 of the object's JSON, as Go
 * encodes a []byte>}`. Downstream, `insert` and `delete` (the LC rejects anything else);
 * upstream, `status`, after a first bare empty header (the LC's hello on every connect).
 */
import { z } from "zod";
import type { KubeObject } from "../../../../../protocol/index.ts";
import { base64, fromBase64 } from "../../../../kit/base64.ts";

/** The largest frame read (the channel's default `maxFrameBytes`: the relay closes a socket that sends more). */
export const MAX_FRAME_CHARS = 1024 * 1024;

/** The deepest nesting read in a frame's content. */
export const MAX_CONTENT_DEPTH = 32;

/** A downstream operation the LC understands. */
export type DownstreamOperation = "insert" | "delete";

/** A message header (every field a string; empty in the hello). */
export const Header = z.object({
  namespace: z.string().max(63).default(""),
  resourceKind: z.string().max(63).default(""),
  resourceName: z.string().max(253).default(""),
  operation: z.string().max(32).default(""),
});
export type Header = z.infer<typeof Header>;

/** Standard base64, padded, as Go's encoding/json writes a []byte. */
const Base64 = z
  .string()
  .max(MAX_FRAME_CHARS)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, "expected base64")
  .refine((text) => text.length % 4 === 0, "expected padded base64");

/** A whole message; `content` is null for a nil []byte. */
const Message = z.object({ header: Header, content: Base64.nullable().default(null) });

/** The LC's hello: a bare MessageHeader, every field empty (`wsConn.WriteJSON(&MessageHeader{})`). */
const Hello = z.object({ namespace: z.literal(""), resourceKind: z.literal(""), resourceName: z.literal(""), operation: z.literal("") }).strict();

/** A frame a peer sent, as read. */
export type Upstream =
  | { readonly kind: "hello" }
  | { readonly kind: "message"; readonly header: Header; readonly content: unknown }
  /** `header`: when the frame's header was read (its content is what is wrong), the object it names. */
  | { readonly kind: "refused"; readonly reason: "malformed" | "too-large"; readonly message: string; readonly header?: Header };

/** The key of an object on the channel: lower-case kind, namespace and name. */
export function channelKey(resourceKind: string, namespace: string, name: string): string {
  return `${resourceKind.toLowerCase()}/${namespace}/${name}`;
}

/**
 * What a peer is sent of an object: the object without its status, managed fields and
 * resourceVersion. The LC stores the type, metadata and spec only (`db.SaveResource`), and
 * leaving out what every status write changes keeps a job's round reports and our own
 * status writes from re-sending it to each of its nodes; `apiVersion` and `kind` are set,
 * as upstream sets the kind a list may leave out.
 */
export function edgeContent(object: KubeObject): Record<string, unknown> {
  const { status: _status, metadata, ...rest } = object;
  const { managedFields: _managed, resourceVersion: _version, ...meta } = metadata as Record<string, unknown>;
  return { ...rest, apiVersion: object.apiVersion, kind: object.kind, metadata: meta };
}

/** A downstream frame: `operation` of `object`, with `content`. */
function encodeFrame(operation: DownstreamOperation, object: KubeObject, content: Record<string, unknown>): string {
  const header: Header = {
    namespace: object.metadata.namespace ?? "",
    resourceKind: object.kind.toLowerCase(),
    resourceName: object.metadata.name ?? "",
    operation,
  };
  return JSON.stringify({ header, content: base64(JSON.stringify(content)) });
}

/**
 * Both frames of an object: the insert that gives a node its content (`edgeContent`) and
 * the delete that takes it away. A delete carries the object's type and metadata only:
 * every LC manager's `Delete` reads the header alone (`managers/*`), and a delete is
 * stored once per node until written (a tombstone), so it stays small.
 */
export function framesOf(object: KubeObject): { insert: string; delete: string } {
  const content = edgeContent(object);
  return { insert: encodeFrame("insert", object, content), delete: encodeFrame("delete", object, { apiVersion: content["apiVersion"], kind: content["kind"], metadata: content["metadata"] }) };
}

/** Reads a frame a peer sent: the hello, a message with its content parsed, or why it is refused. Never throws. */
export function decodeFrame(data: string): Upstream {
  if (data.length > MAX_FRAME_CHARS) return refused("too-large", `frame of ${data.length} characters, more than ${MAX_FRAME_CHARS}`);
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return refused("malformed", "not JSON");
  }
  if (Hello.safeParse(json).success) return { kind: "hello" };
  const message = Message.safeParse(json);
  if (!message.success) return refused("malformed", describe(message.error));
  const { header } = message.data;
  // Go writes an empty []byte as "" and a nil one as null: both are no content.
  const content = message.data.content === "" ? null : message.data.content;
  if (isEmpty(header) && content === null) return { kind: "hello" };
  if (content === null) return { kind: "message", header, content: null };
  let text: string;
  try {
    text = fromBase64(content);
  } catch {
    return refused("malformed", "content is not base64 of UTF-8 text", header);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return refused("malformed", "content is not JSON", header);
  }
  if (depthOf(parsed) > MAX_CONTENT_DEPTH) return refused("too-large", `content nests deeper than ${MAX_CONTENT_DEPTH}`, header);
  return { kind: "message", header, content: parsed };
}

function refused(reason: "malformed" | "too-large", message: string, header?: Header): Upstream {
  return header ? { kind: "refused", reason, message, header } : { kind: "refused", reason, message };
}

function isEmpty(header: Header): boolean {
  return header.namespace === "" && header.resourceKind === "" && header.resourceName === "" && header.operation === "";
}

/** The first issue, naming its field. */
function describe(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.map(String).join(".") || "frame"}: ${issue.message}` : "invalid";
}

/** How deep `value` nests (a scalar is 0), walked without recursion so no input overflows the stack. */
export function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== "object" || current === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_CONTENT_DEPTH) return deepest;
    for (const child of Object.values(current as Record<string, unknown>)) stack.push([child, depth + 1]);
  }
  return deepest;
}
