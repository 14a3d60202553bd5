import assert from "node:assert/strict";
import { test } from "node:test";
import { askedFor } from "./go.ts";

const FILE = "test/bench/cluster.bench.ts";

test("the cluster part is asked for when a PART of `npm run bench` is in its path", () => {
  assert.equal(askedFor(FILE, ["/usr/bin/node", "/work/scripts/bench.ts", "cluster"]), true);
  assert.equal(askedFor(FILE, ["node", "scripts/bench.ts", "sedna", "cluster", "--readme"]), true);
});

test("it is not asked for by a run of every part, of other parts, or by a flag's value", () => {
  assert.equal(askedFor(FILE, ["node", "scripts/bench.ts"]), false);
  assert.equal(askedFor(FILE, ["node", "scripts/bench.ts", "--readme"]), false);
  assert.equal(askedFor(FILE, ["node", "scripts/bench.ts", "sedna", "gang"]), false);
  assert.equal(askedFor(FILE, ["node", "scripts/bench.ts", "--out", "cluster", "sim"]), false);
});

test("run by hand with --one, the file was named; an unreadable parent counts as a run of every part", () => {
  assert.equal(askedFor(FILE, ["/bin/bash"]), true);
  assert.equal(askedFor(FILE, undefined), false);
});
