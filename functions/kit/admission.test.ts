import assert from "node:assert/strict";
import { test } from "node:test";
import { allow, deny, patchWith, pointerSegment } from "./admission.ts";

const request = { uid: "u-1" };

test("allow and deny answer the request's uid; deny carries the message kubectl prints", () => {
  assert.deepEqual(allow(request), { uid: "u-1", allowed: true });
  assert.deepEqual(allow(request, ["careful"]), { uid: "u-1", allowed: true, warnings: ["careful"] });
  assert.deepEqual(deny(request, 'cleanPodPolicy "Sometimes" is not one of ALL, Running, None'), {
    uid: "u-1",
    allowed: false,
    status: { code: 400, reason: "Invalid", message: 'cleanPodPolicy "Sometimes" is not one of ALL, Running, None' },
  });
  assert.equal(deny(request, "no", 403).status?.reason, "Forbidden");
});

test("patchWith encodes the JSONPatch as base64 of UTF-8 JSON, non-ASCII included; no operations is a plain allow", () => {
  const operations = [{ op: "add" as const, path: `/metadata/annotations/${pointerSegment("edgeloop.dev/note")}`, value: "naïve ✓" }];
  const response = patchWith(request, operations);
  assert.equal(response.patchType, "JSONPatch");
  assert.deepEqual(JSON.parse(Buffer.from(response.patch ?? "", "base64").toString("utf8")), operations);
  assert.equal(operations[0]?.path, "/metadata/annotations/edgeloop.dev~1note");
  assert.deepEqual(patchWith(request, []), { uid: "u-1", allowed: true });
});
