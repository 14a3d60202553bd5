import assert from "node:assert/strict";
import { test } from "node:test";
import { setCondition, setExclusive } from "./conditions.ts";
import { injectEnv } from "./container-env.ts";
import { shortHash, stableStringify } from "./hash.ts";
import { applyMergePatch, createMergePatch } from "./merge-patch.ts";

test("stableStringify ignores key order; shortHash is stable, short and name-safe", () => {
  assert.equal(stableStringify({ b: 1, a: [{ d: 2, c: undefined }] }), '{"a":[{"d":2}],"b":1}');
  assert.equal(shortHash({ a: 1, b: 2 }), shortHash({ b: 2, a: 1 }));
  assert.notEqual(shortHash({ a: 1 }), shortHash({ a: 2 }));
  assert.match(shortHash("x", 5), /^[0-9a-z]{5}$/);
});

test("stableStringify matches JSON for mixed values and serialises nesting far deeper than the call stack allows", () => {
  const mixed = { z: [1, "two", null, undefined, true, { y: [], x: {} }], a: { n: -1.5, s: "q\"" } };
  assert.equal(stableStringify(mixed), '{"a":{"n":-1.5,"s":"q\\""},"z":[1,"two",null,null,true,{"x":{},"y":[]}]}');
  assert.equal(stableStringify([]), "[]");
  assert.equal(stableStringify("s"), '"s"');
  let deep: unknown = "leaf";
  for (let i = 0; i < 20_000; i += 1) deep = i % 2 ? [deep] : { k: deep };
  const text = stableStringify(deep);
  assert.equal(text.length, 10_000 * ("[".length + '{"k":'.length + "]}".length) + '"leaf"'.length);
  assert.match(shortHash(deep), /^[0-9a-z]{10}$/);
});

test("injectEnv: ours win over the user's same-named variables, the rest is kept", () => {
  const spec = injectEnv({ containers: [{ name: "a", env: [{ name: "LC_SERVER", value: "mine" }, { name: "keep", value: "1" }] }] }, [{ name: "LC_SERVER", value: "ours" }], ["creds"]);
  assert.deepEqual(spec.containers[0]?.env, [{ name: "keep", value: "1" }, { name: "LC_SERVER", value: "ours" }]);
  assert.deepEqual(spec.containers[0]?.["envFrom"], [{ secretRef: { name: "creds" } }]);
});

test("conditions: one per type, times move only on change, exclusive sets the others False with the current reason", () => {
  const t0 = "2026-01-01T00:00:00Z";
  const t1 = "2026-01-01T00:00:01Z";
  const running = { type: "Running", status: "True" as const, reason: "r", message: "m" };
  const once = setCondition([], running, t0, "lastHeartbeatTime");
  assert.deepEqual(setCondition(once, running, t1, "lastHeartbeatTime"), once, "unchanged: nothing moves");
  const failed = setExclusive(once, { type: "Failed", status: "True", reason: "f", message: "x" }, ["Pending", "Running", "Failed"], t1, "lastHeartbeatTime");
  assert.deepEqual(failed.map((c) => [c.type, c.status, c.lastTransitionTime]), [["Running", "False", t1], ["Failed", "True", t1]]);
  assert.deepEqual(failed.map((c) => [c.reason, c.message]), [["f", "x"], ["f", "x"]], "a stale condition does not keep its old message");
  const t2 = "2026-01-01T00:00:02Z";
  const back = setExclusive(failed, running, ["Pending", "Running", "Failed"], t2, "lastHeartbeatTime");
  assert.deepEqual(back.map((c) => [c.type, c.status, c.reason, c.lastTransitionTime]), [["Running", "True", "r", t2], ["Failed", "False", "r", t2]]);
  assert.deepEqual(setExclusive(back, running, ["Pending", "Running", "Failed"], t2, "lastHeartbeatTime"), back, "unchanged: nothing moves");
});

test("createMergePatch produces the patch that applyMergePatch turns from into to", () => {
  const from = { a: 1, b: { c: 2, d: 3 }, e: [1, 2], gone: true };
  const to = { a: 1, b: { c: 5 }, e: [2], added: "x" };
  const patch = createMergePatch(from, to);
  assert.deepEqual(patch, { b: { c: 5, d: null }, e: [2], added: "x", gone: null });
  assert.deepEqual(applyMergePatch(from, patch), to);
});
