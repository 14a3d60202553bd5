import type { ReplayClient } from "../deps.ts";
import { MAX_SKEW_SECONDS, SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyRequest } from "../../protocol/index.ts";
import { HttpError } from "./errors.ts";

const REASONS = {
  missing: "missing X-Edgeloop-Timestamp or X-Edgeloop-Signature header",
  malformed: "malformed X-Edgeloop-Timestamp or X-Edgeloop-Signature header",
  skew: "X-Edgeloop-Timestamp is more than 300 s away from the Worker's clock",
  mismatch: "signature does not match the body",
} as const;

/**
 * Verifies the request's HMAC over `<timestamp>.<body>`; throws 401 when it is not good.
 * The body must be the exact bytes received (signatures cover raw bytes, not parsed JSON).
 */
export async function requireSignature(request: Request, body: Uint8Array, secret: string, nowSeconds: number): Promise<void> {
  if (!secret) throw new HttpError(500, "misconfigured", "EDGELOOP_SECRET is not set on the Worker");
  const problem = await verifyRequest(
    secret,
    { timestamp: request.headers.get(TIMESTAMP_HEADER), signature: request.headers.get(SIGNATURE_HEADER) },
    body,
    nowSeconds,
  );
  if (problem) throw new HttpError(401, `signature_${problem}`, REASONS[problem], problem === "skew" ? TIMESTAMP_HEADER : SIGNATURE_HEADER);
}

/**
 * Refuses a signed POST whose exact signature was received before, while its timestamp is
 * still inside the skew window (after that the skew check refuses it). Legitimate POSTs
 * never repeat a signature: every body carries the relay's clock or a unique id. GETs
 * (manifest, outbox) are reads and may repeat within a second.
 */
export async function refuseReplay(request: Request, replay: ReplayClient): Promise<void> {
  if (request.method !== "POST") return;
  const signature = request.headers.get(SIGNATURE_HEADER) ?? "";
  const expiresAt = (Number(request.headers.get(TIMESTAMP_HEADER)) + MAX_SKEW_SECONDS + 1) * 1000;
  if (!(await replay.first(signature, expiresAt))) {
    throw new HttpError(401, "signature_replayed", "this signed request was already received (replay)", SIGNATURE_HEADER);
  }
}
