import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { MAX_BODY_BYTES, parseJson, readBody } from "./body.ts";
import { HttpError } from "./errors.ts";

function streamOf(total: number, chunk = 1024 * 1024): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller): void {
      if (sent >= total) return controller.close();
      const size = Math.min(chunk, total - sent);
      sent += size;
      controller.enqueue(new Uint8Array(size));
    },
  });
}

const post = (body: ReadableStream<Uint8Array>): Request => new Request("http://x/", { method: "POST", body, duplex: "half" } as RequestInit);

test("a streamed body without a length is cut off at the limit with a 413", async () => {
  await assert.rejects(readBody(post(streamOf(MAX_BODY_BYTES + 1))), (error: unknown) => error instanceof HttpError && error.status === 413);
  assert.equal((await readBody(post(streamOf(MAX_BODY_BYTES)))).byteLength, MAX_BODY_BYTES);
});

test("parseJson names the field zod refused", () => {
  const schema = z.object({ spec: z.object({ replicas: z.number() }) });
  const bytes = new TextEncoder().encode('{"spec":{"replicas":"two"}}');
  assert.throws(() => parseJson(bytes, schema), (error: unknown) => error instanceof HttpError && error.status === 400 && error.path === "spec.replicas");
  assert.throws(() => parseJson(new TextEncoder().encode("{"), schema), (error: unknown) => error instanceof HttpError && error.code === "malformed_json");
});
