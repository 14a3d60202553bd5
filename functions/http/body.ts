import type { z } from "zod";
import { HttpError } from "./errors.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan, tooDeep } from "../../protocol/json-depth.ts";

// The depth bound lives in protocol/ (the relay bounds its admission and API bodies with it too); re-exported for the Worker's callers.
export { MAX_JSON_DEPTH, nestsDeeperThan, tooDeep };

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
