import assert from "node:assert/strict";
import { test } from "node:test";
import { chaosFaults, selectFaults } from "./faults.ts";

test("the suite has every fault the issue names, each once", () => {
  const names = chaosFaults().map((fault) => fault.name);
  assert.equal(new Set(names).size, names.length);
  for (const word of ["SIGKILL", "Worker down 30 s", "Durable Object", "leader failover", "410", "duplicate and reordered", "409", "429", "500", "slow", "connection cut"]) {
    assert.equal(names.filter((name) => name.includes(word)).length, 1, word);
  }
});

test("--only picks faults by a word of their name, in any case; none picks all", () => {
  const faults = chaosFaults();
  assert.deepEqual(selectFaults(faults, ["sigkill", "429"]).map((f) => f.name), ["relay SIGKILL mid-burst, restarted", "API 429 Retry-After 2"]);
  assert.equal(selectFaults(faults, []).length, faults.length);
  assert.deepEqual(selectFaults(faults, ["no such fault"]), []);
});
