import { test } from "node:test";
import assert from "node:assert/strict";
import { signRequest, verifyRequest, TIMESTAMP_HEADER, SIGNATURE_HEADER } from "./signing.ts";

const body = new TextEncoder().encode('{"hello":"world"}');

async function headersAt(now: number, secret = "s3cret"): Promise<{ timestamp: string; signature: string }> {
  const h = await signRequest(secret, body, now);
  return { timestamp: h[TIMESTAMP_HEADER]!, signature: h[SIGNATURE_HEADER]! };
}

test("a signed body verifies", async () => {
  assert.equal(await verifyRequest("s3cret", await headersAt(1000), body, 1000), null);
});

test("a tampered body, a wrong key, a stale or future timestamp, missing headers are refused", async () => {
  const good = await headersAt(1000);
  assert.equal(await verifyRequest("s3cret", good, new TextEncoder().encode('{"hello":"World"}'), 1000), "mismatch");
  assert.equal(await verifyRequest("other", good, body, 1000), "mismatch");
  assert.equal(await verifyRequest("s3cret", good, body, 1301), "skew");
  assert.equal(await verifyRequest("s3cret", good, body, 699), "skew");
  assert.equal(await verifyRequest("s3cret", { timestamp: null, signature: good.signature }, body, 1000), "missing");
  assert.equal(await verifyRequest("s3cret", { timestamp: good.timestamp, signature: "sha256=zz" }, body, 1000), "malformed");
  assert.equal(await verifyRequest("s3cret", { timestamp: "1000", signature: good.signature.replace(/.$/, "0") === good.signature ? good.signature.replace(/.$/, "1") : good.signature.replace(/.$/, "0") }, body, 1000), "mismatch");
});
