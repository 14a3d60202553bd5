import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { createSigner, verifyRequest, SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../../protocol/index.ts";
import { createNodeSigner } from "./signer.ts";

const SECRET = "a-secret-of-at-least-sixteen";

test("the Node signer signs exactly as the protocol's WebCrypto signer, and the Worker's verifier accepts it", async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom("GET", "POST"), fc.webPath().map((p) => `/${p.replace(/^\/+/, "")}`), fc.uint8Array({ maxLength: 2048 }), fc.string({ maxLength: 64 }), async (method, target, bytes, text) => {
      for (const body of [bytes, text]) {
        const request = { method, target, body };
        const node = await createNodeSigner(SECRET)(request, 1_700_000_000.7);
        assert.deepEqual(node, await createSigner(SECRET)(request, 1_700_000_000.7));
        assert.equal(await verifyRequest(SECRET, { timestamp: node[TIMESTAMP_HEADER], signature: node[SIGNATURE_HEADER] }, request, 1_700_000_001), null);
      }
    }),
    { numRuns: 200 },
  );
});

test("the Node signer refuses a request target it cannot sign unambiguously", async () => {
  assert.throws(() => createNodeSigner(SECRET)({ method: "GET", target: "/a\nb", body: "" }, 0), /cannot sign/);
});
