import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH, parseJson, readBody, tooDeep } from "./body.ts";
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

test("parseJson refuses nesting past MAX_JSON_DEPTH with a 400 naming where, and takes it up to the bound", () => {
  const wrap = (depth: number): string => `{"a":${"[".repeat(depth - 1)}1${"]".repeat(depth - 1)}}`;
  const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
  const anything = z.unknown();
  assert.deepEqual(parseJson(bytes(wrap(MAX_JSON_DEPTH)), anything), JSON.parse(wrap(MAX_JSON_DEPTH)));
  assert.throws(
    () => parseJson(bytes(wrap(3000)), anything),
    (error: unknown) => error instanceof HttpError && error.status === 400 && error.code === "too_deep" && error.path === `a${".0".repeat(MAX_JSON_DEPTH - 1)}`,
  );
  assert.equal(tooDeep({ a: [[{ b: 1 }]] }), undefined);
  assert.equal(tooDeep("plain"), undefined);
});

test("the byte scan of nesting agrees with the walk of the parsed value, strings and escapes included", async () => {
  const { default: fc } = await import("fast-check");
  const { nestsDeeperThan } = await import("./body.ts");
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 12 }), fc.integer({ min: 1, max: 12 }), (value, max) => {
      const text = JSON.stringify(value);
      const deepest = (v: unknown): number => (typeof v === "object" && v !== null ? 1 + Math.max(0, ...Object.values(v).map(deepest)) : 0);
      assert.equal(nestsDeeperThan(new TextEncoder().encode(text), max), deepest(value) > max);
    }),
    { numRuns: 500 },
  );
  assert.equal(nestsDeeperThan(new TextEncoder().encode('{"a":"[[[[\\"[[[["}'), 1), false, "brackets inside a string, after an escaped quote");
});
