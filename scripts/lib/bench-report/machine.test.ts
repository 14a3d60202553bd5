import assert from "node:assert/strict";
import { test } from "node:test";
import { parseRunInfo, recordRuns, thisMachine } from "./machine.ts";

test("a partial run adds to the runs of the same machine; another machine starts afresh", () => {
  const machine = thisMachine();
  assert.ok(machine.cores >= 1 && machine.ramGiB > 0 && machine.node.startsWith("v"));
  const first = recordRuns(undefined, machine, ["sim", "relay"], "2026-11-25T10:00:00Z", "aaa");
  const second = recordRuns(first, machine, ["sim"], "2026-11-25T11:00:00Z", "bbb");
  assert.deepEqual(second.runs, { sim: { date: "2026-11-25T11:00:00Z", commit: "bbb" }, relay: { date: "2026-11-25T10:00:00Z", commit: "aaa" } });
  const other = recordRuns(first, { ...machine, cores: machine.cores + 1 }, ["sim"], "2026-11-25T12:00:00Z", "ccc");
  assert.deepEqual(Object.keys(other.runs), ["sim"]);
  assert.deepEqual(parseRunInfo(JSON.stringify(second)), second);
  assert.equal(parseRunInfo("{}"), undefined);
  assert.equal(parseRunInfo("not json"), undefined);
});
