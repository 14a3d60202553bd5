import type { z } from "zod";
import { HttpError } from "./errors.ts";

/** Largest request body any route accepts. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * Reads a request body, refusing (413) anything over `MAX_BODY_BYTES` by its declared
 * length or by what actually arrives, without buffering more than the limit.
 */
export async function readBody(request: Request): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
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

/** Parses bytes as JSON, then with `schema`; 400 naming the field on failure. */
export function parseJson<T>(bytes: Uint8Array, schema: z.ZodType<T>): T {
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new HttpError(400, "malformed_json", `body is not JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw HttpError.fromZod(parsed.error);
  return parsed.data;
}
