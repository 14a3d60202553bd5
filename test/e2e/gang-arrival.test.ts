/**
 * Arrival order end to end (ADR 0025), on the sim or a real control plane: the README's
 * backfill example, its shell lines run as a user types them — four Jobs applied back to
 * back with no pause, so they share a creation second and their pods reach the queue in
 * whatever order the Job controller makes them — ends with the README's table: `big`
 * running, `train` reserved for `big`'s end, `quick` backfilled, `long` waiting rather
 * than delay `train`. Every wait is a condition with a deadline.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import type { GangRow } from "../../functions/controllers/gang/api/schema.ts";
import { KUBECTL_SKIP } from "../sim/kubectl.ts";
import { e2eStack, type E2EStack } from "./harness.ts";
import { gangRows, readerToken } from "./readers.ts";

const README = join(import.meta.dirname, "../../README.md");
/** The four nodes of 8 cpu `npm start` makes, as the README's table names them. */
const NODES = ["cloud", "edge-node", "edge1", "edge2"];
const WAIT_MS = 60_000;
const skip = KUBECTL_SKIP;

let stack: E2EStack;
/** A token that may list pods in `default` (the API shows a caller only such namespaces). */
let reader: string;

before(async () => {
  if (skip) return;
  stack = await e2eStack({ nodes: NODES });
  reader = await readerToken(stack, "arrival-reader", ["default"]);
});

after(async () => {
  if (skip) return;
  await stack.stop();
});

/** The README's shell lines from `gang() {` to the line that runs it, as written there. */
function readmeExample(): string {
  const lines = readFileSync(README, "utf8").split("\n");
  const start = lines.findIndex((line) => line.startsWith("gang() {"));
  const end = lines.findIndex((line, i) => i > start && line.startsWith("gang big "));
  assert.ok(start >= 0 && end > start, "the README has the gang() example");
  return lines.slice(start, end + 1).join("\n");
}

/** The queue's rows of `default`, through the relay's API. */
function rows(): Promise<GangRow[]> {
  return gangRows(stack, reader, "default");
}

test("the README's backfill example typed back to back gives the README's table", { skip }, async () => {
  const script = readmeExample();
  assert.match(script, /gang big 4 6 120; gang train 4 8 600; gang quick 2 1 60; gang long 2 1 900$/);
  await new Promise<void>((resolve, reject) => {
    execFile("bash", ["-c", script], { env: { ...process.env, KUBECONFIG: stack.kubeconfigPath } }, (error, _stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve()));
  });
  const settled = await waitFor(
    "the four groups decided (big and quick running, train reserved, long pending)",
    rows,
    (items) => {
      const state = new Map(items.map((row) => [row.group, row.state] as const));
      return state.get("big") === "running" && state.get("quick") === "running" && state.get("train") === "reserved" && state.get("long") === "pending";
    },
    { timeoutMs: WAIT_MS },
  );
  const table = settled.map((row) => [row.group, row.state, `${row.present}/${row.size}`, row.position, row.nodes.join(","), row.reason?.kind ?? null]);
  assert.deepEqual(table, [
    ["big", "running", "4/4", null, "cloud,edge-node,edge1,edge2", null],
    ["long", "pending", "2/2", 2, "", "delays-reservation"],
    ["quick", "running", "2/2", null, "cloud", null],
    ["train", "reserved", "4/4", 1, "cloud,edge-node,edge1,edge2", "resources"],
  ]);
  const big = settled.find((row) => row.group === "big");
  const train = settled.find((row) => row.group === "train");
  assert.ok(big?.deadline !== null && big?.deadline !== undefined && train?.reservedStart !== null && train?.reservedStart !== undefined);
  assert.equal(train.reservedStart, big.deadline, "train is reserved for the end of big, not of long");
  assert.match(settled.find((row) => row.group === "long")?.waitingFor ?? "", /would delay the reservation of default\/train/);
});
