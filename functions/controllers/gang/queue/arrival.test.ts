/**
 * Arrival order does not change the outcome (ADR 0025): the same Jobs and pods, delivered
 * all at once or interleaved in any order over several batches within the arrival window,
 * bind every pod to the same node, start the same groups and reserve the same one.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import fc from "fast-check";
import type { WatchEvent } from "../../../../protocol/reconcile.ts";
import type { KubeObject } from "../../../../protocol/objects.ts";
import { rawNode, rawPod } from "../core/testing/build.ts";
import { GangQueueLogic, type GangQueueOptions } from "./scheduler.ts";
import { at, batch, binds, list, T0 } from "./testing/batches.ts";
import { SqliteSql } from "../../../kit/testing/sqlite.ts";

const OPTIONS: GangQueueOptions = { defaultDurationSeconds: 3600, arrivalTimeoutSeconds: 300, bindCheckSeconds: 10, arrivalWindowSeconds: 30 };
/** The four nodes of 8 cpu `npm start` makes. */
const NODES = ["cloud", "edge-node", "edge1", "edge2"].map((name) => rawNode(name, { cpu: "8" }));

/** A gang as the README's `gang NAME PODS CPU SECONDS` makes it: a Job and its pods. */
interface Gang {
  readonly name: string;
  readonly pods: number;
  readonly cpu: number;
  readonly seconds: number;
}

/** The README's Job (same template), created at second `created` after T0. */
function job(gang: Gang, created: number): Record<string, unknown> {
  const template = rawPod("template", { group: gang.name, size: gang.pods, cpu: String(gang.cpu), deadline: gang.seconds });
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: gang.name, namespace: "default", uid: `uid-job-${gang.name}`, creationTimestamp: new Date(T0 + created * 1000).toISOString() },
    spec: { completions: gang.pods, parallelism: gang.pods, template: { metadata: { labels: (template["metadata"] as { labels: unknown }).labels }, spec: template["spec"] } },
  };
}

/** The Job's pods. */
function podsOf(gang: Gang, created: number): Record<string, unknown>[] {
  return Array.from({ length: gang.pods }, (_, i) => {
    const pod = rawPod(`${gang.name}-${i}`, { group: gang.name, size: gang.pods, cpu: String(gang.cpu), deadline: gang.seconds, created });
    (pod["metadata"] as Record<string, unknown>)["ownerReferences"] = [{ apiVersion: "batch/v1", kind: "Job", name: gang.name, uid: `uid-job-${gang.name}`, controller: true }];
    return pod;
  });
}

const added = (object: Record<string, unknown>): WatchEvent => ({ type: "ADDED", kind: object["kind"] === "Job" ? "Job.batch/v1" : "Pod.v1", object: object as KubeObject, initial: false });

/** What a run ends with: every bind sent, and the rows of the inspection. */
interface Outcome {
  readonly binds: string[];
  readonly rows: string[];
}

/**
 * Runs the Jobs (created in order, all in second 0, as `gang a; gang b; ...` typed back
 * to back) then their pods in `batches` (lists of pod events), the i-th batch at
 * `times[i]` ms after the list.
 */
function run(gangs: readonly Gang[], batches: readonly WatchEvent[][], times: readonly number[]): Outcome {
  const logic = new GangQueueLogic(new SqliteSql(new DatabaseSync(":memory:")), OPTIONS);
  const sent: string[] = [];
  sent.push(...binds(logic.apply(list(NODES, 1)).actions));
  const base = at(1);
  sent.push(...binds(logic.apply({ ...batch(gangs.map((g) => added(job(g, 0)))), now: new Date(base + 1).toISOString() }).actions));
  batches.forEach((events, i) => sent.push(...binds(logic.apply({ ...batch(events), now: new Date(base + 2 + (times[i] ?? 0)).toISOString() }).actions)));
  const last = base + 2 + Math.max(0, ...times);
  // The binds' own watch events bring one more pass, as on a cluster: the rows are that pass's.
  sent.push(...binds(logic.apply({ ...batch([{ type: "MODIFIED", kind: "Node.v1", object: NODES[0] as KubeObject, initial: false }]), now: new Date(last + 1).toISOString() }).actions));
  const rows = logic.groups(last + 1).map((row) => `${row.group} ${row.state} ${row.present}/${row.size} ${row.nodes.join(",")} ${row.position ?? "-"} ${row.reason?.kind ?? "-"}`);
  return { binds: sent.sort(), rows };
}

const README_GANGS: readonly Gang[] = [
  { name: "big", pods: 4, cpu: 6, seconds: 120 },
  { name: "train", pods: 4, cpu: 8, seconds: 600 },
  { name: "quick", pods: 2, cpu: 1, seconds: 60 },
  { name: "long", pods: 2, cpu: 1, seconds: 900 },
];

test("the README's example typed back to back: the table of the README, whatever order the pods arrive in", () => {
  const pods = README_GANGS.map((g) => podsOf(g, 0).map(added));
  const expected = [
    "big running 4/4 cloud,edge-node,edge1,edge2 - -",
    "long pending 2/2  2 delays-reservation",
    "quick running 2/2 cloud - -",
    "train reserved 4/4 cloud,edge-node,edge1,edge2 1 resources",
  ];
  assert.deepEqual(run(README_GANGS, [pods.flat()], [0]).rows, expected, "all at once");
  // `long` (l < t) arrives first, then `quick`, `train`, `big`: the order the issue saw break.
  assert.deepEqual(run(README_GANGS, [...pods].reverse(), [10, 20, 30, 40]).rows, expected, "Jobs' pods in reverse order");
  const interleaved = [0, 1, 2, 3].flatMap((i) => pods.map((group) => group[i]).filter((e): e is WatchEvent => e !== undefined).map((e) => [e]));
  assert.deepEqual(run(README_GANGS, interleaved, interleaved.map((_, i) => i * 5)).rows, expected, "pods interleaved one by one");
});

test("a group ahead still arriving holds its place only for the arrival window, then the groups behind it go", () => {
  const logic = new GangQueueLogic(new SqliteSql(new DatabaseSync(":memory:")), OPTIONS);
  logic.apply(list(NODES, 0));
  const first: Gang = { name: "first", pods: 4, cpu: 8, seconds: 600 };
  const second: Gang = { name: "second", pods: 2, cpu: 8, seconds: 600 };
  // first's pods: 3 of 4 arrive; second's pods all arrive, behind it.
  const early = podsOf(first, 0).slice(0, 3).map(added);
  assert.deepEqual(binds(logic.apply(batch([added(job(first, 0)), added(job(second, 0)), ...early], 1)).actions), []);
  assert.deepEqual(binds(logic.apply(batch(podsOf(second, 0).map(added), 2)).actions), [], "second waits: first holds the whole cluster");
  const row = logic.groups(at(2)).find((r) => r.group === "first");
  assert.match(row?.waitingFor ?? "", /1 more of 4 pods; holds its place until 2026-01-01T00:00:30.000Z/);
  assert.equal(logic.nextWake(), at(30), "the window's end is the next wake-up");
  const due = logic.due(at(30));
  assert.deepEqual(binds(due.actions), ["second-0→cloud", "second-1→edge-node"], "at the window's end, a pass: second starts");
});

test("property: any interleaving of the pods, in any batches within a second, gives the binds of all-at-once arrival", () => {
  const gangArb = fc.record({ pods: fc.integer({ min: 1, max: 4 }), cpu: fc.integer({ min: 1, max: 8 }) });
  const scenario = fc
    .uniqueArray(fc.integer({ min: 1, max: 30 }), { minLength: 2, maxLength: 6 })
    .chain((durations) =>
      fc.record({
        gangs: fc.tuple(...durations.map((minutes, i) => gangArb.map((g): Gang => ({ name: `g${i}`, pods: g.pods, cpu: g.cpu, seconds: minutes * 60 })))),
        seed: fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
        cuts: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
      }),
    );
  fc.assert(
    fc.property(scenario, ({ gangs, seed, cuts }) => {
      const events = gangs.flatMap((g) => podsOf(g, 0).map(added));
      const all = run(gangs, [events], [0]);
      // A permutation from the seed, cut into batches where `cuts` says, 10 ms apart.
      const shuffled = events.map((event, i) => ({ event, key: seed[i % seed.length] ?? 0, i })).sort((a, b) => a.key - b.key || a.i - b.i).map(({ event }) => event);
      const batches: WatchEvent[][] = [[]];
      shuffled.forEach((event, i) => {
        (batches[batches.length - 1] as WatchEvent[]).push(event);
        if (cuts[i] === true && i < shuffled.length - 1) batches.push([]);
      });
      const interleaved = run(gangs, batches, batches.map((_, i) => i * 10));
      assert.deepEqual(interleaved.binds, all.binds);
      assert.deepEqual(interleaved.rows, all.rows);
    }),
    { numRuns: 150, seed: 25 },
  );
});

test("the order survives a restart and a relist that lists groups by name; a list numbers new groups by creation time, not name", () => {
  const dir = mkdtempSync(join(tmpdir(), "gang-order-"));
  try {
    const path = join(dir, "state.sqlite");
    const open = (): GangQueueLogic => new GangQueueLogic(new SqliteSql(new DatabaseSync(path)), { ...OPTIONS, arrivalWindowSeconds: 0 });
    // zeta is seen before alpha; each needs the whole cluster, so only the head runs.
    const zeta: Gang = { name: "zeta", pods: 4, cpu: 8, seconds: 600 };
    const alpha: Gang = { name: "alpha", pods: 4, cpu: 8, seconds: 300 };
    const first = open();
    first.apply(list(NODES, 0));
    const zetaPods = podsOf(zeta, 0).slice(0, 3);
    first.apply(batch(zetaPods.map(added), 1));
    const alphaPods = podsOf(alpha, 0);
    first.apply(batch(alphaPods.slice(0, 3).map(added), 2));
    assert.deepEqual(first.groups(at(2)).map((row) => `${row.group} ${row.state}`), ["alpha provisional", "zeta provisional"]);
    // The Durable Object restarts; the relay restarts too and lists everything, in name order (alpha first): both complete now.
    const second = open();
    const rest = podsOf(zeta, 0).slice(3);
    const plan = second.apply(list([...NODES, ...alphaPods, ...zetaPods, ...rest], 3));
    assert.deepEqual(binds(plan.actions).map((b) => b.split("-")[0]), ["zeta", "zeta", "zeta", "zeta"], "zeta, seen first, keeps its place");
    // A fresh queue that first learns of groups from a list numbers them by creation time, then list order.
    const fresh = new GangQueueLogic(new SqliteSql(new DatabaseSync(":memory:")), { ...OPTIONS, arrivalWindowSeconds: 0 });
    const later = podsOf({ ...alpha, name: "aaa" }, 5);
    const earlier = podsOf({ ...zeta, name: "zzz" }, 4);
    assert.deepEqual(new Set(binds(fresh.apply(list([...NODES, ...later, ...earlier], 6)).actions).map((b) => b.split("-")[0])), new Set(["zzz"]), "zzz, created a second earlier, goes first");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a Job whose group started announces nothing more: once its pods are gone it holds no place", () => {
  const logic = new GangQueueLogic(new SqliteSql(new DatabaseSync(":memory:")), OPTIONS);
  logic.apply(list(NODES, 0));
  const done: Gang = { name: "done", pods: 4, cpu: 8, seconds: 600 };
  const pods = podsOf(done, 0);
  assert.equal(binds(logic.apply(batch([added(job(done, 0)), ...pods.map(added)], 1)).actions).length, 4);
  // Its pods end and are deleted (the Job controller's work); the Job stays, Complete.
  logic.apply(batch(pods.map((pod): WatchEvent => ({ type: "DELETED", kind: "Pod.v1", object: pod as KubeObject, initial: false })), 2));
  const next: Gang = { name: "next", pods: 4, cpu: 8, seconds: 600 };
  assert.equal(binds(logic.apply(batch([added(job(next, 3)), ...podsOf(next, 3).map(added)], 3)).actions).length, 4, "not held back by a Job whose group already ran");
});
