import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../../../../protocol/index.ts";
import { base64 } from "../../../../kit/base64.ts";
import { channelKey, decodeFrame, depthOf, framesOf, MAX_CONTENT_DEPTH, MAX_FRAME_CHARS } from "./frames.ts";
import { dataset, flJob, LC_HELLO, lcFrame } from "./testing/objects.ts";

/** What an upstream LC reads of a frame: its header and the object its content decodes to (Go: base64 → []byte → JSON). */
function asLc(frame: string): { header: Record<string, string>; object: Record<string, unknown> } {
  const message = JSON.parse(frame) as { header: Record<string, string>; content: string };
  return { header: message.header, object: JSON.parse(Buffer.from(message.content, "base64").toString("utf8")) as Record<string, unknown> };
}

test("an insert carries the header the LC dispatches on (lower-case kind) and the object's JSON in base64", () => {
  const job: KubeObject = { ...flJob("fl-1", ["edge-1"]), status: { phase: "Running" } };
  job.metadata = { ...job.metadata, managedFields: [{ manager: "x" }] } as typeof job.metadata;
  const { header, object } = asLc(framesOf(job).insert);
  assert.deepEqual(header, { namespace: "default", resourceKind: "federatedlearningjob", resourceName: "fl-1", operation: "insert" });
  assert.equal(object["kind"], "FederatedLearningJob");
  assert.equal(object["apiVersion"], "sedna.io/v1alpha1");
  assert.deepEqual(object["spec"], job["spec"]);
  assert.deepEqual(object["metadata"], { name: "fl-1", namespace: "default", uid: "uid-fl-1" }, "no resourceVersion nor managed fields");
  assert.equal(object["status"], undefined, "the LC stores type, metadata and spec only");
});

test("a delete names the object the same way and carries its type and metadata only; a status write or a new resourceVersion changes no frame", () => {
  const data = dataset("d1", "edge-1");
  const { header, object } = asLc(framesOf(data).delete);
  assert.deepEqual(header, { namespace: "default", resourceKind: "dataset", resourceName: "d1", operation: "delete" });
  assert.deepEqual(object, { apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: "d1", namespace: "default", uid: "uid-d1" } });
  const written = { ...data, metadata: { ...data.metadata, resourceVersion: "99" }, status: { numberOfSamples: 5 } };
  assert.deepEqual(framesOf(written), framesOf(data));
});

test("non-ASCII content survives the base64 round trip as Go's []byte would", () => {
  const data = { ...dataset("d1", "edge-1"), spec: { url: "/données/é.txt", format: "txt", nodeName: "edge-1" } };
  assert.equal((asLc(framesOf(data).insert).object["spec"] as { url: string }).url, "/données/é.txt");
});

test("a status frame from the LC decodes to its header and content", () => {
  const content = { phase: "train", status: "running", output: { ownerInfo: { currentRound: 3 } } };
  assert.deepEqual(decodeFrame(lcFrame("federatedlearningjob", "fl-1", "status", content)), {
    kind: "message",
    header: { namespace: "default", resourceKind: "federatedlearningjob", resourceName: "fl-1", operation: "status" },
    content,
  });
  assert.deepEqual(decodeFrame(lcFrame("dataset", "d1", "status", { numberOfSamples: 10 })), {
    kind: "message",
    header: { namespace: "default", resourceKind: "dataset", resourceName: "d1", operation: "status" },
    content: { numberOfSamples: 10 },
  });
});

test("the LC's first frame, a bare empty header, is the hello; so is an empty message (nil or empty content)", () => {
  assert.deepEqual(decodeFrame(LC_HELLO), { kind: "hello" });
  assert.deepEqual(decodeFrame(JSON.stringify({ header: {}, content: "" })), { kind: "hello" });
  assert.deepEqual(decodeFrame(JSON.stringify({ header: { namespace: "", resourceKind: "", resourceName: "", operation: "" }, content: null })), { kind: "hello" });
});

const refusals: readonly (readonly [string, string, "malformed" | "too-large", boolean])[] = [
  ["not JSON", "{", "malformed", false],
  ["a JSON array", "[]", "malformed", false],
  ["a header field of the wrong type", JSON.stringify({ header: { namespace: 1 }, content: null }), "malformed", false],
  ["a name longer than 253", JSON.stringify({ header: { namespace: "default", resourceKind: "dataset", resourceName: "n".repeat(254), operation: "status" }, content: null }), "malformed", false],
  ["content not base64", JSON.stringify({ header: { namespace: "default", resourceKind: "dataset", resourceName: "d1", operation: "status" }, content: "!!!" }), "malformed", false],
  ["content base64 of no JSON", JSON.stringify({ header: { namespace: "default", resourceKind: "dataset", resourceName: "d1", operation: "status" }, content: base64("{nope") }), "malformed", true],
  ["content base64 of invalid UTF-8", JSON.stringify({ header: { namespace: "default", resourceKind: "dataset", resourceName: "d1", operation: "status" }, content: btoa("\xff\xfe") }), "malformed", true],
  ["content nested too deep", lcFrame("dataset", "d1", "status", JSON.parse("[".repeat(MAX_CONTENT_DEPTH + 1) + "]".repeat(MAX_CONTENT_DEPTH + 1))), "too-large", true],
  ["a frame over the size bound", "x".repeat(MAX_FRAME_CHARS + 1), "too-large", false],
];

for (const [what, data, reason, named] of refusals) {
  test(`a frame with ${what} is refused as ${reason}${named ? ", naming the object its header read" : ""}`, () => {
    const decoded = decodeFrame(data);
    assert.equal(decoded.kind, "refused");
    assert.ok(decoded.kind === "refused");
    assert.equal(decoded.reason, reason);
    assert.equal(decoded.header !== undefined, named);
  });
}

test("depth counts nesting without recursion; the channel key is kind/namespace/name", () => {
  assert.equal(depthOf(1), 0);
  assert.equal(depthOf({ a: [1, { b: 2 }] }), 3);
  assert.equal(channelKey("FederatedLearningJob", "ns", "n"), "federatedlearningjob/ns/n");
});
