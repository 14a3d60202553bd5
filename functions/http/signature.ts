import type { ReplayClient } from "../deps.ts";
import type { SignatureOnce } from "../../durable/contracts.ts";
import {
  checkSignatureHeaders,
  MAX_SKEW_SECONDS,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  verifySignature,
  type SignatureProblem,
  type Verifier,
} from "../../protocol/index.ts";
import { readBody } from "./body.ts";
import { HttpError } from "./errors.ts";

const REASONS = {
  missing: "missing X-Edgeloop-Timestamp or X-Edgeloop-Signature header",
  malformed: "malformed X-Edgeloop-Timestamp or X-Edgeloop-Signature header (the signature is sha256= and 64 lower-case hex)",
  skew: "X-Edgeloop-Timestamp is more than 300 s away from the Worker's clock",
  mismatch: "signature does not match the request (protocol v2 signs timestamp, method, path and query, and body)",
} as const;

function refused(problem: SignatureProblem): HttpError {
  return new HttpError(401, `signature_${problem}`, REASONS[problem], problem === "skew" ? TIMESTAMP_HEADER : SIGNATURE_HEADER);
}

/** The path and query of `request` as on its request line: what the signature covers besides the body. */
export function requestTarget(request: Request): string {
  const url = new URL(request.url);
  return `${url.pathname}${url.search}`;
}

/**
 * Reads the body of a signed request and verifies its signature, in the order that keeps
 * an unsigned sender from making the Worker buffer: the headers' syntax and clock first
 * (401 without reading), then the declared length against the limit (413 without
 * reading), then the body, bounded, and the MAC over the exact bytes received. Returns
 * those bytes (signatures cover raw bytes, not parsed JSON). `verify` checks the MAC under
 * `secret` (a caller verifying many requests passes one that holds the imported key).
 */
export async function readSignedBody(request: Request, secret: string, nowSeconds: number, verify: Verifier = (checked, signed) => verifySignature(secret, checked, signed)): Promise<Uint8Array> {
  if (!secret) throw new HttpError(500, "misconfigured", "EDGELOOP_SECRET is not set on the Worker");
  const checked = checkSignatureHeaders({ timestamp: request.headers.get(TIMESTAMP_HEADER), signature: request.headers.get(SIGNATURE_HEADER) }, nowSeconds);
  if (typeof checked === "string") throw refused(checked);
  const body = await readBody(request);
  const problem = await verify(checked, { method: request.method, target: requestTarget(request), body });
  if (problem) throw refused(problem);
  return body;
}

/**
 * Refuses a signed request whose signature was received before, while its timestamp is
 * still inside the skew window (after that the skew check refuses it). Called only for
 * requests that change Worker state, after the signature was verified, so the header is
 * in its one canonical spelling and covers method, path, query and body. Legitimate
 * requests never repeat a signature: every POST body carries the relay's clock or a
 * unique id, and the relay never sends one outbox read twice within a second.
 */
export async function refuseReplay(request: Request, replay: ReplayClient): Promise<void> {
  const { signature, expiresAt } = signatureOnce(request);
  if (!(await replay.first(signature, expiresAt))) throw replayed();
}

/** A request's signature and until when it must not be accepted again (ms): what a replay check records. */
export function signatureOnce(request: Request): SignatureOnce {
  const signature = request.headers.get(SIGNATURE_HEADER) ?? "";
  return { signature, expiresAt: (Number(request.headers.get(TIMESTAMP_HEADER)) + MAX_SKEW_SECONDS + 1) * 1000 };
}

/** The refusal of a replayed request. */
export function replayed(): HttpError {
  return new HttpError(401, "signature_replayed", "this signed request was already received (replay)", SIGNATURE_HEADER);
}
