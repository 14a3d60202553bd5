import { test } from "node:test";
import assert from "node:assert/strict";
import { checkSignatureHeaders, signRequest, verifyRequest, TIMESTAMP_HEADER, SIGNATURE_HEADER, type SignedRequest } from "./signing.ts";

const encoder = new TextEncoder();
const post: SignedRequest = { method: "POST", target: "/v1/reconcile/mirror", body: encoder.encode('{"hello":"world"}') };

async function headersAt(now: number, request: SignedRequest = post, secret = "s3cret"): Promise<{ timestamp: string; signature: string }> {
  const h = await signRequest(secret, request, now);
  return { timestamp: h[TIMESTAMP_HEADER]!, signature: h[SIGNATURE_HEADER]! };
}

const toHex = (mac: ArrayBuffer): string => Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, "0")).join("");

/** The v1 scheme: HMAC over `<timestamp>.<body>` only. */
async function v1Signature(secret: string, timestamp: string, body: Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new Uint8Array([...encoder.encode(`${timestamp}.`), ...body]));
  return `sha256=${toHex(mac)}`;
}

test("a signed request verifies; the header is sha256= and 64 lower-case hex", async () => {
  const headers = await headersAt(1000);
  assert.match(headers.signature, /^sha256=[0-9a-f]{64}$/);
  assert.equal(await verifyRequest("s3cret", headers, post, 1000), null);
});

test("the signed string is timestamp, method, path and query, body, one per line", async () => {
  const key = await crypto.subtle.importKey("raw", encoder.encode("s3cret"), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode("1000\nGET\n/v1/outbox?cursor=5&wait=20\n"));
  const headers = await headersAt(1000, { method: "GET", target: "/v1/outbox?cursor=5&wait=20", body: "" });
  assert.equal(headers.signature, `sha256=${toHex(mac)}`);
});

test("a tampered body, a wrong key, a stale or future timestamp, missing headers are refused", async () => {
  const good = await headersAt(1000);
  assert.equal(await verifyRequest("s3cret", good, { ...post, body: '{"hello":"World"}' }, 1000), "mismatch");
  assert.equal(await verifyRequest("other", good, post, 1000), "mismatch");
  assert.equal(await verifyRequest("s3cret", good, post, 1301), "skew");
  assert.equal(await verifyRequest("s3cret", good, post, 699), "skew");
  assert.equal(await verifyRequest("s3cret", { timestamp: null, signature: good.signature }, post, 1000), "missing");
  assert.equal(await verifyRequest("s3cret", { timestamp: good.timestamp, signature: "sha256=zz" }, post, 1000), "malformed");
  const flipped = good.signature.replace(/.$/, (c) => (c === "0" ? "1" : "0"));
  assert.equal(await verifyRequest("s3cret", { timestamp: "1000", signature: flipped }, post, 1000), "mismatch");
});

test("a signature is good for its method, path and query only", async () => {
  const manifest = await headersAt(1000, { method: "GET", target: "/v1/manifest", body: "" });
  assert.equal(await verifyRequest("s3cret", manifest, { method: "GET", target: "/v1/outbox?cursor=999999999999", body: "" }, 1000), "mismatch");
  assert.equal(await verifyRequest("s3cret", manifest, { method: "POST", target: "/v1/manifest", body: "" }, 1000), "mismatch");
  const outbox = await headersAt(1000, { method: "GET", target: "/v1/outbox?cursor=5&wait=20", body: "" });
  assert.equal(await verifyRequest("s3cret", outbox, { method: "GET", target: "/v1/outbox?cursor=6&wait=20", body: "" }, 1000), "mismatch");
  assert.equal(await verifyRequest("s3cret", outbox, { method: "GET", target: "/v1/outbox?cursor=5&wait=20", body: "" }, 1000), null);
  assert.equal(await verifyRequest("s3cret", await headersAt(1000), { ...post, target: "/v1/events/mirror" }, 1000), "mismatch");
});

test("only the canonical spelling is accepted: upper or mixed case and wrong lengths are malformed", async () => {
  const good = await headersAt(1000);
  const hex = good.signature.slice("sha256=".length);
  const mixed = hex.replace(/[a-f]/, (c) => c.toUpperCase());
  assert.notEqual(mixed, hex, "the signature has a hex letter to capitalise");
  for (const signature of [`sha256=${hex.toUpperCase()}`, `sha256=${mixed}`, `SHA256=${hex}`, `sha256=${hex}00`, `sha256=${hex.slice(2)}`, `sha256=${hex} `]) {
    assert.equal(await verifyRequest("s3cret", { timestamp: good.timestamp, signature }, post, 1000), "malformed", signature);
  }
});

test("a v1 signature (over timestamp and body only) is refused", async () => {
  const signature = await v1Signature("s3cret", "1000", post.body as Uint8Array);
  assert.equal(await verifyRequest("s3cret", { timestamp: "1000", signature }, post, 1000), "mismatch");
});

test("the header check needs no body and catches missing, malformed and skewed headers", () => {
  assert.equal(checkSignatureHeaders({ timestamp: "1000", signature: undefined }, 1000), "missing");
  assert.equal(checkSignatureHeaders({ timestamp: "soon", signature: `sha256=${"a".repeat(64)}` }, 1000), "malformed");
  assert.equal(checkSignatureHeaders({ timestamp: "1000", signature: `sha256=${"a".repeat(64)}` }, 2000), "skew");
  const checked = checkSignatureHeaders({ timestamp: "1000", signature: `sha256=${"a".repeat(64)}` }, 1000);
  assert.ok(typeof checked === "object" && checked.mac.length === 32);
});

test("a target that is not a path, or holds a newline, is not signed", async () => {
  await assert.rejects(signRequest("s3cret", { method: "GET", target: "v1/manifest", body: "" }, 1000), /cannot sign/);
  await assert.rejects(signRequest("s3cret", { method: "GET", target: "/v1/manifest\nGET", body: "" }, 1000), /cannot sign/);
});
