import assert from "node:assert/strict";
import { test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import { SimFaults } from "./faults.ts";
import type { FaultRequest } from "./rules.ts";
import { verbOf } from "./rules.ts";
import { WatchShaper } from "./watch-shaper.ts";

const createPod = (name: string): FaultRequest => ({ verb: "create", resource: "pods", subresource: undefined, namespace: "a", name, method: "POST", path: "/api/v1/namespaces/a/pods" });
const getPod: FaultRequest = { verb: "get", resource: "pods", subresource: undefined, namespace: "a", name: "p", method: "GET", path: "/api/v1/namespaces/a/pods/p" };

test("a counted rule answers exactly that many selected requests, and journals every selected one", () => {
  const faults = new SimFaults(1, () => 42);
  const id = faults.add({ verbs: ["create"], resources: ["pods"], answer: { type: "status", code: 429, retryAfterSeconds: 2 }, count: 2 });
  assert.deepEqual([1, 2, 3].map((n) => faults.decide(createPod(`p${n}`))?.type), ["status", "status", undefined]);
  assert.equal(faults.decide(getPod), undefined, "a get is not selected");
  assert.equal(faults.left(id), 0);
  assert.deepEqual(faults.journal().map((e) => [e.name, e.answer?.type ?? "through", e.at]), [["p1", "status", 42], ["p2", "status", 42], ["p3", "through", 42]]);
  faults.remove(id);
  assert.equal(faults.selected(createPod("p4")), false);
});

test("a probability is seeded: the same seed answers the same requests", () => {
  const run = (seed: number): boolean[] => {
    const faults = new SimFaults(seed);
    faults.add({ answer: { type: "status", code: 500 }, probability: 0.5 });
    return Array.from({ length: 40 }, (_, i) => faults.decide(createPod(`p${i}`)) !== undefined);
  };
  assert.deepEqual(run(7), run(7));
  assert.notDeepEqual(run(7), run(8));
  const reseeded = new SimFaults(8);
  reseeded.reseed(7);
  reseeded.add({ answer: { type: "status", code: 500 }, probability: 0.5 });
  assert.deepEqual(Array.from({ length: 40 }, (_, i) => reseeded.decide(createPod(`p${i}`)) !== undefined), run(7), "reseeding starts the chances again");
  const hits = run(7).filter(Boolean).length;
  assert.ok(hits > 5 && hits < 35, `about half: ${hits}`);
});

test("selectors: verbs, resources, subresource ('' for none) and namespace", () => {
  const faults = new SimFaults();
  faults.add({ verbs: ["patch"], resources: ["federatedlearningjobs"], subresource: "status", namespace: "x", answer: { type: "delay", ms: 5 } });
  const status: FaultRequest = { verb: "patch", resource: "federatedlearningjobs", subresource: "status", namespace: "x", name: "j", method: "PATCH", path: "/apis/sedna.io/v1alpha1/namespaces/x/federatedlearningjobs/j/status" };
  assert.deepEqual(faults.decide(status), { type: "delay", ms: 5 });
  assert.equal(faults.decide({ ...status, subresource: undefined }), undefined);
  assert.equal(faults.decide({ ...status, namespace: "y" }), undefined);
  assert.throws(() => faults.add({ answer: { type: "status", code: 200 } }), /400|>=|too_small/i, "a rule is checked");
  faults.clear();
  assert.equal(faults.selected(status), false);
});

test("verbOf names requests as RBAC does", () => {
  assert.deepEqual(
    [verbOf("GET", true, false), verbOf("GET", false, false), verbOf("GET", false, true), verbOf("POST", false, false), verbOf("PUT", true, false), verbOf("PATCH", true, false), verbOf("DELETE", true, false), verbOf("DELETE", false, false)],
    ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"],
  );
});

test("a 410 storm ends every watch the server has, round after round", async () => {
  const faults = new SimFaults();
  let rounds = 0;
  faults.attach({ endWatches: (gone) => (assert.equal(gone, true), (rounds += 1), 3) });
  assert.equal(await faults.goneStorm({ rounds: 3, intervalMs: 1 }), 9);
  assert.equal(rounds, 3);
  assert.equal(faults.goneSent, 9);
});

test("the shaper sends an event twice, or swaps it with the next event of another object, and never loses one", async () => {
  const written: string[] = [];
  const counts = { duplicated: 0, reordered: 0 };
  let shaping = { duplicate: 1, reorder: 0, holdMs: 20 };
  const shaper = new WatchShaper((line) => written.push(line), () => shaping, () => 0, counts);
  shaper.event("a1", "a");
  assert.deepEqual(written, ["a1", "a1"]);
  shaping = { duplicate: 0, reorder: 1, holdMs: 20 };
  shaper.event("b1", "b");
  assert.deepEqual(written, ["a1", "a1"], "held");
  shaper.event("c1", "c");
  assert.deepEqual(written.slice(2), ["c1", "b1"], "swapped with another object's event");
  shaper.event("d1", "d");
  shaper.event("d2", "d");
  assert.deepEqual(written.slice(4), ["d1", "d2"], "one object's events keep their order");
  shaper.event("e1", "e");
  await waitFor("the held event written (the events written)", () => written.slice(), (lines) => lines.length >= 7);
  assert.deepEqual(written.slice(6), ["e1"], "a held event goes after holdMs");
  assert.deepEqual(counts, { duplicated: 1, reordered: 1 });
});
