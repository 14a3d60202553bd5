import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { framingCases, framingVariants, type FramingTarget } from "./framing.ts";

const TARGET: FramingTarget = { host: "127.0.0.1:1", path: "/v1alpha1/replicas?namespace=chaos", smuggled: "POST /v1alpha1/replicas HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}" };
const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString("latin1");

test("every fixed case has its own label and is aimed at the target's route", () => {
  const cases = framingCases(TARGET);
  assert.ok(cases.length >= 50, `${cases.length} cases`);
  assert.equal(new Set(cases.map((c) => c.label)).size, cases.length, "labels are unique");
  const aimed = cases.filter((c) => text(c.bytes).includes(TARGET.path));
  assert.ok(aimed.length >= cases.length - 3, "all but the garbage and the ClientHello name the route");
});

test("each smuggling case carries the smuggled request whole, after a framing that reads it as a body", () => {
  const smuggling = framingCases(TARGET).filter((c) => c.label.includes("smuggles"));
  assert.ok(smuggling.length >= 5);
  for (const c of smuggling) {
    assert.ok(text(c.bytes).endsWith(TARGET.smuggled), c.label);
    assert.match(text(c.bytes), /Content-Length: [1-9]/, c.label);
  }
});

test("what a right framing reads as the body is never a request any route accepts (a refusal then changes nothing)", () => {
  for (const c of framingCases(TARGET).filter((x) => !x.label.includes("smuggles") && !x.label.includes("garbage") && !x.label.includes("ClientHello"))) {
    assert.ok(!text(c.bytes).includes('{"'), `${c.label}: no JSON object in it`);
  }
});

test("the generated variants are seeded: the same seed, the same bytes", () => {
  const a = fc.sample(framingVariants(TARGET), { numRuns: 20, seed: 7 }).map((c) => text(c.bytes));
  const b = fc.sample(framingVariants(TARGET), { numRuns: 20, seed: 7 }).map((c) => text(c.bytes));
  assert.deepEqual(a, b);
});
