import assert from "node:assert/strict";
import { test } from "node:test";
import type { GangList, GangRow } from "../../functions/controllers/gang/api/schema.ts";
import { deadlineCell, formatGangTable, gangCells, nodesCell, relativeTime, shortDuration } from "./gangs-table.ts";

const NOW = "2026-03-01T12:00:00Z";

/** `seconds` after NOW (negative: before), RFC 3339. */
function at(seconds: number): string {
  return new Date(Date.parse(NOW) + seconds * 1000).toISOString();
}

function row(fields: Partial<GangRow> & Pick<GangRow, "group" | "state">): GangRow {
  return { namespace: "default", present: 0, size: 2, position: null, reservedStart: null, nodes: [], deadline: null, waitingFor: null, reason: null, ...fields };
}

const ROWS: GangRow[] = [
  row({ group: "draft", state: "provisional", present: 1, size: 4, waitingFor: "3 more pods of the group to be created" }),
  row({
    group: "train",
    state: "pending",
    present: 4,
    size: 4,
    position: 2,
    deadline: at(55),
    waitingFor: "nvidia.com/gpu: 2 short on 3 nodes",
    reason: { kind: "resources", resource: "nvidia.com/gpu", short: 2, pods: 4, nodes: 3, text: "nvidia.com/gpu: 2 short on 3 nodes" },
  }),
  row({ group: "infer", state: "reserved", present: 2, size: 2, position: 1, reservedStart: at(190), nodes: ["node-1", "node-2"], waitingFor: "running pods on node-1 to finish" }),
  row({ namespace: "ml", group: "fl", state: "running", present: 3, size: 3, nodes: ["edge-node-a", "edge-node-b", "edge-node-c", "edge-node-d", "edge-node-e"], deadline: at(-5) }),
  row({ namespace: "ml", group: "huge", state: "rejected", present: 8, size: 8, waitingFor: "asks 8 nodes with\nnvidia.com/gpu: the cluster has 3", reason: { kind: "unsatisfiable", resource: "nvidia.com/gpu", short: 5, pods: 8, nodes: 3, text: "asks 8 nodes" } }),
];

test("shortDuration prints at most two units, as kubectl prints ages", () => {
  assert.equal(shortDuration(0), "0s");
  assert.equal(shortDuration(42), "42s");
  assert.equal(shortDuration(60), "1m");
  assert.equal(shortDuration(190), "3m10s");
  assert.equal(shortDuration(3600 + 5 * 60 + 7), "1h5m");
  assert.equal(shortDuration(2 * 86_400 + 3 * 3600 + 59), "2d3h");
});

test("relativeTime reads from the scheduler's now: ahead, now, behind; a part of a second counts", () => {
  assert.equal(relativeTime(at(42), NOW), "in 42s");
  assert.equal(relativeTime(at(190), NOW), "in 3m10s");
  assert.equal(relativeTime(at(0.2), NOW), "in 1s");
  assert.equal(relativeTime(NOW, NOW), "now");
  assert.equal(relativeTime(at(-42), NOW), "42s ago");
  assert.equal(relativeTime("soon", NOW), "soon");
});

test("a deadline reads in Ns, passed once reached, - without one", () => {
  assert.equal(deadlineCell(at(55), NOW), "in 55s");
  assert.equal(deadlineCell(NOW, NOW), "passed");
  assert.equal(deadlineCell(at(-300), NOW), "passed");
  assert.equal(deadlineCell(null, NOW), "-");
});

test("nodes: the count and the first names that fit, ,… for the others", () => {
  assert.equal(nodesCell([]), "-");
  assert.equal(nodesCell(["node-1"]), "1 (node-1)");
  assert.equal(nodesCell(["node-1", "node-2"]), "2 (node-1,node-2)");
  assert.equal(nodesCell(["node-1", "node-2", "node-3"], 14), "3 (node-1,…)");
  // The last name needs no room for ,…: it fits exactly.
  assert.equal(nodesCell(["node-1", "node-2"], 13), "2 (node-1,node-2)");
  assert.equal(nodesCell(["a-very-long-node-name"], 8), "1 (a-very-…)");
  const many = Array.from({ length: 50 }, (_, i) => `node-${i + 1}`);
  const cell = nodesCell(many);
  assert.match(cell, /^50 \(node-1,node-2,.*,…\)$/);
  assert.ok(cell.length <= "50 ()".length + 40, cell);
});

test("each state's row", () => {
  const cells = ROWS.map((r) => gangCells(r, NOW));
  assert.deepEqual(cells[0], ["default", "draft", "provisional", "1/4", "-", "-", "-", "-", "3 more pods of the group to be created"]);
  assert.deepEqual(cells[1], ["default", "train", "pending", "4/4", "2", "-", "-", "in 55s", "nvidia.com/gpu: 2 short on 3 nodes"]);
  assert.deepEqual(cells[2], ["default", "infer", "reserved", "2/2", "1", "in 3m10s", "2 (node-1,node-2)", "-", "running pods on node-1 to finish"]);
  assert.deepEqual(cells[3], ["ml", "fl", "running", "3/3", "-", "-", "5 (edge-node-a,edge-node-b,edge-node-c,…)", "passed", "-"]);
  // A waiting-for text is kept whole, on one line.
  assert.deepEqual(cells[4], ["ml", "huge", "rejected", "8/8", "-", "-", "-", "-", "asks 8 nodes with nvidia.com/gpu: the cluster has 3"]);
});

test("the table: an uppercase header, columns aligned two spaces apart, the last one not padded", () => {
  const list: GangList = { now: NOW, items: ROWS };
  assert.equal(
    formatGangTable(list),
    [
      "NAMESPACE  GROUP  STATE        PODS  POSITION  ETA       NODES                                      DEADLINE  WAITING-FOR",
      "default    draft  provisional  1/4   -         -         -                                          -         3 more pods of the group to be created",
      "default    train  pending      4/4   2         -         -                                          in 55s    nvidia.com/gpu: 2 short on 3 nodes",
      "default    infer  reserved     2/2   1         in 3m10s  2 (node-1,node-2)                          -         running pods on node-1 to finish",
      "ml         fl     running      3/3   -         -         5 (edge-node-a,edge-node-b,edge-node-c,…)  passed    -",
      "ml         huge   rejected     8/8   -         -         -                                          -         asks 8 nodes with nvidia.com/gpu: the cluster has 3",
      "",
    ].join("\n"),
  );
});

test("an empty list is the header alone", () => {
  assert.equal(formatGangTable({ now: NOW, items: [] }), "NAMESPACE  GROUP  STATE  PODS  POSITION  ETA  NODES  DEADLINE  WAITING-FOR\n");
});
