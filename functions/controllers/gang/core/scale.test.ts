import assert from "node:assert/strict";
import { test } from "node:test";
import { checkNode } from "./node-fit.ts";
import { schedulePass } from "./pass.ts";
import { scaleInput } from "./testing/scale.ts";
import { take, toDense } from "./view.ts";

test("a pass over 10,000 pending pods in groups of 8 on 1,000 nodes is consistent (correctness only, no timing)", () => {
  const input = scaleInput();
  const report = schedulePass(input);
  const { view } = report;
  assert.equal(report.queue.length, 1250);
  // Every queued group is accounted for exactly once.
  const outcomes = [...report.starts.map((s) => s.group), ...report.waiting.map((w) => w.group), ...report.rejected.map((r) => r.group), ...(report.reservation ? [report.reservation.group] : [])];
  assert.equal(outcomes.length, report.queue.length);
  assert.deepEqual(new Set(outcomes), new Set(report.queue.map((g) => g.key)));
  assert.ok(report.starts.length > 0, "some groups start");
  assert.ok(report.reservation !== undefined, "some group is blocked");
  // Each start places all its pods, on nodes that take them, without overcommitting any node.
  const free = view.free.slice();
  const pods = new Map(input.pods.map((p) => [p.uid, p]));
  for (const start of report.starts) {
    const group = report.queue.find((g) => g.key === start.group);
    assert.equal(start.placed.size, group?.pods.length);
    for (const [uid, name] of start.placed) {
      const record = pods.get(uid);
      const n = view.index.get(name);
      assert.ok(record !== undefined && n !== undefined);
      assert.equal(checkNode(record.constraints, view.nodes[n]!), undefined, `${uid} on ${name}`);
      take(free, view.dims.length, n, toDense(view.dims, record.request).vector);
    }
  }
  for (let i = 0; i < free.length; i += 1) {
    assert.ok((free[i] ?? 0) >= Math.min(0, view.free[i] ?? 0), `node ${Math.floor(i / view.dims.length)} overcommitted in ${view.dims[i % view.dims.length]}`);
  }
  // Deterministic.
  const again = schedulePass(input);
  assert.deepEqual(again.starts.map((s) => [s.group, [...s.placed]]), report.starts.map((s) => [s.group, [...s.placed]]));
  assert.deepEqual(again.reservation, report.reservation);
});
