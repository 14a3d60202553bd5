import type { z } from "zod";
import { HttpError } from "./errors.ts";

/** Largest request body any route accepts. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * Reads a request body, refusing (413) anything over `MAX_BODY_BYTES` by its declared
 * length or by what actually arrives, without buffering more than the limit.
 */
export async function readBody(request: Request): Promise<Uint8Array> {
  const length = request.headers.get("content-length");
  const declared = Number(length ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  // A declared length within the limit is what arrives (HTTP framing): read at once.
  if (length !== null && Number.isSafeInteger(declared) && declared >= 0) return new Uint8Array(await request.arrayBuffer());
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function tooLarge(): HttpError {
  return new HttpError(413, "too_large", `request body over ${MAX_BODY_BYTES} bytes`);
}

/**
 * Deepest nesting of arrays and objects any body may have. Real snapshots stay far below
 * (a pod template inside a snapshot is about 15 deep); the bound is what lets every walk
 * of user data in the Worker (merge patches, structural validation, reconcilers) recurse
 * safely, instead of a deep array overflowing the stack into a 500.
 */
export const MAX_JSON_DEPTH = 64;

/** A container met by the depth walk, linked to its parent so the path is built only once refused. */
interface Nested {
  readonly value: object;
  readonly depth: number;
  readonly key: string;
  readonly parent: Nested | undefined;
}

function pathOf(node: Nested): string {
  const keys: string[] = [];
  for (let at: Nested | undefined = node; at?.parent; at = at.parent) keys.push(at.key);
  return keys.reverse().join(".");
}

/** The dot path of an array or object nested deeper than `MAX_JSON_DEPTH`, if any (iterative: the walk itself cannot overflow). */
export function tooDeep(data: unknown): string | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const stack: Nested[] = [{ value: data, depth: 1, key: "", parent: undefined }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.depth > MAX_JSON_DEPTH) return pathOf(node);
    for (const [key, child] of Object.entries(node.value)) {
      if (typeof child === "object" && child !== null) stack.push({ value: child as object, depth: node.depth + 1, key, parent: node });
    }
  }
  return undefined;
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether the JSON text in `bytes` nests arrays and objects deeper than `max`: one pass
 * over the bytes, strings skipped (no byte of a multi-byte UTF-8 character is ASCII).
 * A walk of the parsed value allocated a frame per container: a tenth of the Worker's
 * time per reconcile.
 */
export function nestsDeeperThan(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth += 1;
      if (depth > max) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth -= 1;
  }
  return false;
}

/** Parses bytes as JSON (at most `MAX_JSON_DEPTH` deep), then with `schema`; 400 naming the field on failure. */
export function parseJson<T>(bytes: Uint8Array, schema: z.ZodType<T>): T {
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new HttpError(400, "malformed_json", `body is not JSON: ${(error as Error).message}`);
  }
  // The walk that names the path runs only for a body the byte scan found too deep.
  const deep = nestsDeeperThan(bytes, MAX_JSON_DEPTH) ? (tooDeep(data) ?? "") : undefined;
  if (deep !== undefined) throw new HttpError(400, "too_deep", `nested more than ${MAX_JSON_DEPTH} arrays/objects deep`, deep);
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw HttpError.fromZod(parsed.error);
  return parsed.data;
}
