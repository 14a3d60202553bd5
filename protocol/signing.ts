/**
 * Request signing shared by the relay (signer) and the Worker (verifier):
 * `X-Edgeloop-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`,
 * `X-Edgeloop-Timestamp: <unix seconds>`. WebCrypto only, so it runs in Node and workerd.
 */
export const SIGNATURE_HEADER = "x-edgeloop-signature";
export const TIMESTAMP_HEADER = "x-edgeloop-timestamp";
/** Largest accepted difference between the signer's and the verifier's clocks. */
export const MAX_SKEW_SECONDS = 300;

const encoder = new TextEncoder();

async function hmacKey(secret: string, usage: "sign" | "verify"): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [usage]);
}

function signedBytes(timestamp: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${timestamp}.`);
  const out = new Uint8Array(new ArrayBuffer(prefix.length + body.length));
  out.set(prefix, 0);
  out.set(body, prefix.length);
  return out;
}

function toHex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> | null {
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) return null;
  const out = new Uint8Array(new ArrayBuffer(hex.length / 2));
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Signs bodies under one secret: the two headers to send with `body`, signed at `nowSeconds`. */
export type Signer = (body: Uint8Array | string, nowSeconds: number) => Promise<Record<string, string>>;

/** A signer that imports its key once (a client signing every request should hold one). */
export function createSigner(secret: string): Signer {
  const key = hmacKey(secret, "sign");
  return async (body, nowSeconds) => {
    const bytes = typeof body === "string" ? encoder.encode(body) : body;
    const timestamp = String(Math.floor(nowSeconds));
    const mac = await crypto.subtle.sign("HMAC", await key, signedBytes(timestamp, bytes));
    return { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: `sha256=${toHex(mac)}` };
  };
}

/** The two headers to send with `body`, signed at `nowSeconds`. */
export async function signRequest(secret: string, body: Uint8Array | string, nowSeconds: number): Promise<Record<string, string>> {
  return createSigner(secret)(body, nowSeconds);
}

/** Why a signature was refused, or null when it is good. */
export type SignatureProblem = "missing" | "malformed" | "skew" | "mismatch";

/**
 * Checks a request's signature in constant time (WebCrypto `verify`).
 * Returns null when valid, otherwise the reason it is not.
 */
export async function verifyRequest(
  secret: string,
  headers: { timestamp: string | null | undefined; signature: string | null | undefined },
  body: Uint8Array,
  nowSeconds: number,
): Promise<SignatureProblem | null> {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature) return "missing";
  if (!/^\d{1,12}$/.test(timestamp) || !signature.startsWith("sha256=")) return "malformed";
  const mac = fromHex(signature.slice("sha256=".length));
  if (!mac || mac.length !== 32) return "malformed";
  if (Math.abs(nowSeconds - Number(timestamp)) > MAX_SKEW_SECONDS) return "skew";
  const key = await hmacKey(secret, "verify");
  const ok = await crypto.subtle.verify("HMAC", key, mac, signedBytes(timestamp, body));
  return ok ? null : "mismatch";
}
