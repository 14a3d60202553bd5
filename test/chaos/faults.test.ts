import assert from "node:assert/strict";
import { test } from "node:test";
import { chaosFaults, selectFaults } from "./faults.ts";

test("the suite has every fault the issue names, each once", () => {
  const names = chaosFaults().map((fault) => fault.name);
  assert.equal(new Set(names).size, names.length);
  for (const word of [
    "SIGKILL mid-burst",
    "Worker down 30 s",
    "Durable Object restart",
    "Durable Object state lost",
    "leader failover",
    "410",
    "duplicate and reordered",
    "409",
    "429",
    "500",
    "slow",
    "connection cut",
    "API server restart, lost writes",
    "replicas POST, Worker answer dropped",
    "SIGKILL during replicas POST",
    "partial create, then the client's retry",
    "SIGKILL during a gang placement",
    "gang placement, Worker answers dropped",
    "clock step back",
    "clock step forward",
  ]) {
    assert.equal(names.filter((name) => name.includes(word)).length, 1, word);
  }
});

test("--only picks faults by a word of their name, in any case; none picks all", () => {
  const faults = chaosFaults();
  assert.deepEqual(selectFaults(faults, ["sigkill mid", "429"]).map((f) => f.name), ["relay SIGKILL mid-burst, restarted", "API 429 Retry-After 2"]);
  assert.equal(selectFaults(faults, []).length, faults.length);
  assert.deepEqual(selectFaults(faults, ["no such fault"]), []);
});
