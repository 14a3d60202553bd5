/**
 * Request signing shared by the relay (signer) and the Worker (verifier), protocol v2:
 * `X-Edgeloop-Signature: sha256=<64 lower-case hex HMAC-SHA256>` of
 * `"<timestamp>\n<METHOD>\n<path and query as sent>\n<raw body>"`, and
 * `X-Edgeloop-Timestamp: <unix seconds>`. The method and target are signed so that a
 * signature captured for one request authorises no other (v1 signed only the body, and a
 * bodiless manifest GET's signature was good for any outbox cursor). One spelling only:
 * the replay guard keys on the header, so a second spelling would be a second key.
 * WebCrypto only, so it runs in Node and workerd.
 */
export const SIGNATURE_HEADER = "x-edgeloop-signature";
export const TIMESTAMP_HEADER = "x-edgeloop-timestamp";
/** Largest accepted difference between the signer's and the verifier's clocks. */
export const MAX_SKEW_SECONDS = 300;

const SIGNATURE_SYNTAX = /^sha256=[0-9a-f]{64}$/;
const TIMESTAMP_SYNTAX = /^\d{1,12}$/;
const encoder = new TextEncoder();

/** What a signature covers besides the timestamp: the request line and the raw body. */
export interface SignedRequest {
  readonly method: string;
  /** The path and query exactly as on the request line, e.g. `/v1/outbox?cursor=5&wait=20`. */
  readonly target: string;
  readonly body: Uint8Array | string;
}

async function hmacKey(secret: string, usage: "sign" | "verify"): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [usage]);
}

/**
 * What a signature covers before the body: `"<timestamp>\n<METHOD>\n<target>\n"` (a signer
 * with a streaming HMAC feeds this, then the body, without joining them).
 */
export function signedPrefix(timestamp: string, request: Pick<SignedRequest, "method" | "target">): string {
  // Newlines separate the fields; neither a method nor a request target can hold one.
  if (!request.target.startsWith("/") || /[\r\n]/.test(request.target + request.method)) {
    throw new Error(`cannot sign request target ${JSON.stringify(request.target)}`);
  }
  return `${timestamp}\n${request.method.toUpperCase()}\n${request.target}\n`;
}

function signedBytes(timestamp: string, request: SignedRequest): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(signedPrefix(timestamp, request));
  const body = typeof request.body === "string" ? encoder.encode(request.body) : request.body;
  const out = new Uint8Array(new ArrayBuffer(prefix.length + body.length));
  out.set(prefix, 0);
  out.set(body, prefix.length);
  return out;
}

function toHex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(new ArrayBuffer(hex.length / 2));
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Signs requests under one secret: the two headers to send with `request`, signed at `nowSeconds`. */
export type Signer = (request: SignedRequest, nowSeconds: number) => Promise<Record<string, string>>;

/** A signer that imports its key once (a client signing every request should hold one). */
export function createSigner(secret: string): Signer {
  const key = hmacKey(secret, "sign");
  return async (request, nowSeconds) => {
    const timestamp = String(Math.floor(nowSeconds));
    const mac = await crypto.subtle.sign("HMAC", await key, signedBytes(timestamp, request));
    return { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: `sha256=${toHex(mac)}` };
  };
}

/** The two headers to send with `request`, signed at `nowSeconds`. */
export async function signRequest(secret: string, request: SignedRequest, nowSeconds: number): Promise<Record<string, string>> {
  return createSigner(secret)(request, nowSeconds);
}

/** Why a signature was refused, or null when it is good. */
export type SignatureProblem = "missing" | "malformed" | "skew" | "mismatch";

/** The signature headers as received. */
export interface SignatureHeaders {
  readonly timestamp: string | null | undefined;
  readonly signature: string | null | undefined;
}

/** Signature headers whose syntax and clock were found good: only the MAC is left to check. */
export interface CheckedSignature {
  readonly timestamp: string;
  readonly mac: Uint8Array<ArrayBuffer>;
}

/**
 * Checks what can be checked without the body: both headers present, in their one
 * canonical spelling, and the timestamp within `MAX_SKEW_SECONDS` of `nowSeconds`.
 * A verifier calls this before reading the body, so a bad header costs no read.
 */
export function checkSignatureHeaders(headers: SignatureHeaders, nowSeconds: number): CheckedSignature | SignatureProblem {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature) return "missing";
  if (!TIMESTAMP_SYNTAX.test(timestamp) || !SIGNATURE_SYNTAX.test(signature)) return "malformed";
  if (Math.abs(nowSeconds - Number(timestamp)) > MAX_SKEW_SECONDS) return "skew";
  return { timestamp, mac: fromHex(signature.slice("sha256=".length)) };
}

/** Checks the MAC of headers already checked by `checkSignatureHeaders`, in constant time (WebCrypto `verify`). */
export async function verifySignature(secret: string, checked: CheckedSignature, request: SignedRequest): Promise<"mismatch" | null> {
  const key = await hmacKey(secret, "verify");
  const ok = await crypto.subtle.verify("HMAC", key, checked.mac, signedBytes(checked.timestamp, request));
  return ok ? null : "mismatch";
}

/** Checks the MAC of headers already checked by `checkSignatureHeaders` under one secret. */
export type Verifier = (checked: CheckedSignature, request: SignedRequest) => Promise<"mismatch" | null>;

/** A verifier that imports its key once (a Worker verifying every request should hold one: an import per request cost a tenth of verifying). */
export function createVerifier(secret: string): Verifier {
  const key = hmacKey(secret, "verify");
  return async (checked, request) => ((await crypto.subtle.verify("HMAC", await key, checked.mac, signedBytes(checked.timestamp, request))) ? null : "mismatch");
}

/** Checks a request's signature: null when valid, otherwise the reason it is not. */
export async function verifyRequest(secret: string, headers: SignatureHeaders, request: SignedRequest, nowSeconds: number): Promise<SignatureProblem | null> {
  const checked = checkSignatureHeaders(headers, nowSeconds);
  if (typeof checked === "string") return checked;
  return verifySignature(secret, checked, request);
}
