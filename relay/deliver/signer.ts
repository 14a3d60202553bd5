/**
 * The relay's request signer: protocol v2's HMAC-SHA256 (`protocol/signing.ts`) computed
 * with `node:crypto`'s synchronous HMAC, fed the signed prefix and then the body as they
 * are. WebCrypto's `sign` (what the protocol module uses, to run in workerd too) queues a
 * job on libuv's thread pool and resolves a promise per request: at 200 self-heals a
 * second it was the relay's largest single cost (a tenth of its CPU), for a MAC over a
 * few kilobytes. The signature is the same bytes either way (tested).
 */
import { createHmac } from "node:crypto";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, signedPrefix, type Signer } from "../../protocol/index.ts";

/** A signer for `secret` on Node's crypto. */
export function createNodeSigner(secret: string): Signer {
  return (request, nowSeconds) => {
    const timestamp = String(Math.floor(nowSeconds));
    const mac = createHmac("sha256", secret).update(signedPrefix(timestamp, request)).update(request.body).digest("hex");
    return Promise.resolve({ [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: `sha256=${mac}` });
  };
}
