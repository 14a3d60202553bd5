import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeFrame, encodeFrame, exitCodeStatus, negotiate, successStatus } from "./channel-protocol.ts";

test("negotiate picks the server's most preferred protocol the client offers", () => {
  assert.equal(negotiate(["v4.channel.k8s.io", "v5.channel.k8s.io"]), "v5.channel.k8s.io");
  assert.equal(negotiate(["base64.channel.k8s.io"]), "base64.channel.k8s.io");
  assert.equal(negotiate(["SPDY/3.1", "v2.channel.k8s.io"]), undefined);
});

test("binary frames carry the channel byte, base64 frames an ASCII digit and base64 data", () => {
  assert.deepEqual(encodeFrame("v5.channel.k8s.io", 1, Buffer.from("hi")), Buffer.from([1, 104, 105]));
  assert.equal(encodeFrame("v4.base64.channel.k8s.io", 2, Buffer.from("hi")), "2aGk=");
  assert.deepEqual(decodeFrame("v5.channel.k8s.io", Buffer.from([0, 120])), { kind: "data", channel: 0, data: Buffer.from("x") });
  assert.deepEqual(decodeFrame("base64.channel.k8s.io", Buffer.from("0eA==")), { kind: "data", channel: 0, data: Buffer.from("x") });
});

test("v5's close signal half-closes a channel; other protocols read 255 as a channel", () => {
  assert.deepEqual(decodeFrame("v5.channel.k8s.io", Buffer.from([255, 0])), { kind: "close", channel: 0 });
  assert.deepEqual(decodeFrame("v5.channel.k8s.io", Buffer.from([255, 0, 1])), { kind: "ignore" });
  assert.equal(decodeFrame("v4.channel.k8s.io", Buffer.from([255, 0])).kind, "data");
  assert.deepEqual(decodeFrame("v5.channel.k8s.io", Buffer.alloc(0)), { kind: "ignore" });
});

test("the error channel's Status: Success, or NonZeroExitCode with the code in an ExitCode cause", () => {
  assert.deepEqual(successStatus(), { metadata: {}, status: "Success" });
  const failure = exitCodeStatus(["sh", "-c", "exit 3"], 3);
  assert.equal(failure.reason, "NonZeroExitCode");
  assert.deepEqual(failure.details, { causes: [{ reason: "ExitCode", message: "3" }] });
});
