import assert from "node:assert/strict";
import { test } from "node:test";
import { formatLinkShape, LinkSpecError, NO_SHAPE, parseLinkCommand, parseLinkSpec } from "./spec.ts";

test("a spec reads any subset of rtt, jitter, loss and bandwidth; none is no shaping", () => {
  assert.deepEqual(parseLinkSpec("rtt=50ms,jitter=5ms,loss=0.5%,bandwidth=20mbit"), { rttMs: 50, jitterMs: 5, loss: 0.005, bitsPerSecond: 20e6 });
  assert.deepEqual(parseLinkSpec("rtt=0.2s"), { rttMs: 200, jitterMs: 0, loss: 0, bitsPerSecond: undefined });
  assert.deepEqual(parseLinkSpec("bandwidth=512kbit"), { ...NO_SHAPE, bitsPerSecond: 512_000 });
  assert.deepEqual(parseLinkSpec("none"), NO_SHAPE);
  assert.equal(formatLinkShape(parseLinkSpec("rtt=100ms,jitter=10ms,loss=1%,bandwidth=1gbit")), "rtt=100ms,jitter=10ms,loss=1%,bandwidth=1gbit");
  assert.equal(formatLinkShape(NO_SHAPE), "none");
});

test("a typo or an impossible value is refused naming the field", () => {
  const refused = (spec: string, field: string, says: RegExp): void => {
    assert.throws(
      () => parseLinkSpec(spec),
      (error: unknown) => error instanceof LinkSpecError && error.field === field && says.test(error.message),
      spec,
    );
  };
  refused("rt=50ms", "rt", /not a field of a link \(rtt, jitter, loss, bandwidth/);
  refused("rtt=50", "rtt", /"50" is not a duration with its unit/);
  refused("rtt=-5ms", "rtt", /not a duration/);
  refused("rtt=2h", "rtt", /not a duration/);
  refused("rtt=7200s", "rtt", /at most 1 hour/);
  refused("loss=0.5", "loss", /not a percentage/);
  refused("loss=100%", "loss", /below 100%.*down/);
  refused("bandwidth=20mbps", "bandwidth", /not a rate with its unit/);
  refused("bandwidth=1kbit", "bandwidth", /at least 8kbit/);
  refused("rtt=10ms,jitter=6ms", "jitter", /more than half the rtt/);
  refused("rtt=10ms,rtt=20ms", "rtt", /given twice/);
  refused("rtt", "rtt", /key=value/);
  refused("rtt=1ms=2", "rtt", /key=value/);
  refused(",", "spec", /not a field/);
});

test("npm run link takes down, up or a spec", () => {
  assert.deepEqual(parseLinkCommand("down"), { kind: "down" });
  assert.deepEqual(parseLinkCommand(" up "), { kind: "up" });
  assert.deepEqual(parseLinkCommand("rtt=20ms"), { kind: "shape", shape: { ...NO_SHAPE, rttMs: 20 } });
  assert.throws(() => parseLinkCommand("dwon"), LinkSpecError);
});
