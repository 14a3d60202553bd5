import assert from "node:assert/strict";
import { test } from "node:test";
import { signRequest } from "../../protocol/index.ts";
import { MAX_BODY_BYTES } from "./body.ts";
import { HttpError } from "./errors.ts";
import { readSignedBody, refuseReplay } from "./signature.ts";

const SECRET = "test-secret-0123456789";
const NOW = 1_000_000;
const MIB = 1024 * 1024;

/** A body of `total` bytes in 1 MiB chunks that counts what is pulled from it (nothing is pulled ahead). */
function countedBody(total: number): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller): void {
        if (pulled >= total) return controller.close();
        const size = Math.min(MIB, total - pulled);
        pulled += size;
        controller.enqueue(new Uint8Array(size));
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => pulled };
}

function post(target: string, headers: Record<string, string>, body: ReadableStream<Uint8Array> | string): Request {
  return new Request(`https://worker.test${target}`, { method: "POST", headers, body, duplex: "half" } as RequestInit);
}

async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: string }> {
  const error = await promise.then(
    () => assert.fail("expected a refusal"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof HttpError, String(error));
  return { status: error.status, code: error.code };
}

test("a missing, malformed or skewed signature is refused without reading any of the body", async () => {
  const good = await signRequest(SECRET, { method: "POST", target: "/v1/reconcile/x", body: "" }, NOW);
  const cases: [string, Record<string, string>, string][] = [
    ["missing", {}, "signature_missing"],
    ["upper case", { ...good, "x-edgeloop-signature": good["x-edgeloop-signature"]!.toUpperCase().replace("SHA256=", "sha256=") }, "signature_malformed"],
    ["skew", good, "signature_skew"],
  ];
  for (const [name, headers, code] of cases) {
    const body = countedBody(16 * MIB);
    const now = name === "skew" ? NOW + 400 : NOW;
    assert.deepEqual(await refusal(readSignedBody(post("/v1/reconcile/x", headers, body.stream), SECRET, now)), { status: 401, code }, name);
    assert.equal(body.pulled(), 0, name);
  }
});

test("a declared length over the limit is refused before any read; an undeclared one is cut off at the limit", async () => {
  const headers = await signRequest(SECRET, { method: "POST", target: "/v1/reconcile/x", body: "whatever" }, NOW);
  const declared = countedBody(16 * MIB);
  const request = post("/v1/reconcile/x", { ...headers, "content-length": String(16 * MIB) }, declared.stream);
  assert.deepEqual(await refusal(readSignedBody(request, SECRET, NOW)), { status: 413, code: "too_large" });
  assert.equal(declared.pulled(), 0);
  const undeclared = countedBody(16 * MIB);
  assert.deepEqual(await refusal(readSignedBody(post("/v1/reconcile/x", headers, undeclared.stream), SECRET, NOW)), { status: 413, code: "too_large" });
  assert.ok(undeclared.pulled() <= MAX_BODY_BYTES + MIB, `pulled ${undeclared.pulled()}`);
});

test("the body is verified with the method, path and query it came with", async () => {
  const body = '{"a":1}';
  const headers = await signRequest(SECRET, { method: "POST", target: "/v1/reconcile/x?dry=1", body }, NOW);
  const read = await readSignedBody(post("/v1/reconcile/x?dry=1", headers, body), SECRET, NOW);
  assert.equal(new TextDecoder().decode(read), body);
  assert.equal((await refusal(readSignedBody(post("/v1/reconcile/x?dry=2", headers, body), SECRET, NOW))).code, "signature_mismatch");
  assert.equal((await refusal(readSignedBody(post("/v1/reconcile/y?dry=1", headers, body), SECRET, NOW))).code, "signature_mismatch");
  assert.equal((await refusal(readSignedBody(post("/v1/reconcile/x?dry=1", headers, '{"a":2}'), SECRET, NOW))).code, "signature_mismatch");
  assert.equal((await refusal(readSignedBody(post("/v1/reconcile/x?dry=1", headers, body), "", NOW))).status, 500, "no secret configured");
});

test("the replay check keys on the signature header, for GETs as well as POSTs", async () => {
  const seen = new Set<string>();
  const replay = { first: (signature: string): Promise<boolean> => Promise.resolve(!seen.has(signature) && Boolean(seen.add(signature))) };
  const headers = await signRequest(SECRET, { method: "GET", target: "/v1/outbox?cursor=5", body: "" }, NOW);
  const get = (): Request => new Request("https://worker.test/v1/outbox?cursor=5", { headers });
  await refuseReplay(get(), replay);
  assert.deepEqual(await refusal(refuseReplay(get(), replay)), { status: 401, code: "signature_replayed" });
});
