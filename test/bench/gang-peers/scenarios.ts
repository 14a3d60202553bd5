/**
 * The workloads every peer is given, on the same kwok nodes (8 cpu each). Sizes follow
 * the node count `n` (16 by default); "whole-node" pods ask 6 of a node's 8 cpu, so one
 * fits a node.
 *
 * - `throughput`: `pods` pods of 100m in groups of 8 (80 % of the cluster's cpu); 7 pods
 *   of every group are created, the scheduler left to see them (nothing may bind), then
 *   the 8th of every group; timed from the first of those creates until every pod is
 *   bound. pods/s, seconds, half-placed groups, pods bound before their group was complete.
 * - `interleaved` (scheduler-plugins #117): two groups each needing 3/4 of the cluster
 *   (3n/4 whole-node pods, 20 s each), their pods created interleaved. Together they
 *   overfill it; one must run, then the other. Completes when both have run.
 * - `starved` (#713, #397): a filler group holds n/2 nodes for 30 s; then a large group
 *   needing 3n/4 nodes (cannot fit until the filler ends), then n/4 small groups of 2
 *   that fit the free half at once and end (10 s) before the filler does. Do the small
 *   ones run while the large one waits (how many, before it), does the large one start
 *   when the filler ends, and how long after (the retry gap of #397)?
 * - `race` (#930): a filler group holds all nodes but one for 20 s; two groups of 2
 *   whole-node pods arrive interleaved (one free node between them). Neither may be
 *   admitted in part; both run once the filler ends.
 *
 * Each contended scenario has {@link DEADLINE_S} seconds to complete: not completing in
 * that time counts as the deadlock it tests for.
 */
import { tenth } from "../util.ts";
import type { Lab } from "./lab.ts";
import type { GroupSpec } from "./peers.ts";

/** Seconds a contended scenario has to complete. */
export const DEADLINE_S = 150;
/** A pod that takes a node: 6 of its 8 cpu. */
export const WHOLE_NODE_MILLIS = 6_000;
/** How long the throughput scenario may take. */
const THROUGHPUT_WAIT_MS = 600_000;

/** A figure of a scenario, before the peer's prefix. */
export interface ScenarioFigure {
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
}

/** A scenario: named, run in a fresh lab, answering its figures. */
export interface Scenario {
  readonly name: string;
  run(lab: Lab, nodes: number): Promise<ScenarioFigure[]>;
}

function whole(name: string, size: number, runSeconds: number): GroupSpec {
  return { name, size, cpuMillis: WHOLE_NODE_MILLIS, runSeconds };
}

/** Seconds since `start` (performance.now() ms). */
function since(start: number, at: number): number {
  return tenth((at - start) / 1000);
}

/**
 * The figures of a contended scenario whose set-up (its filler) was not placed before the
 * deadline: it did not complete; `extra` figures (seconds) are the deadline too.
 */
function unplaced(lab: Lab, extra: readonly string[]): ScenarioFigure[] {
  return [
    { metric: "completed", value: 0, unit: "bool" },
    { metric: "seconds", value: DEADLINE_S, unit: "s" },
    { metric: "half_placed_groups", value: lab.observer.halfPlaced(performance.now()).length, unit: "groups" },
    ...extra.map((metric) => ({ metric, value: DEADLINE_S, unit: "s" })),
  ];
}

/** Completion figures of a contended scenario: completed (1/0), seconds to complete (the deadline when it did not), half-placed groups. */
function contended(lab: Lab, groups: readonly GroupSpec[], start: number, completed: boolean): ScenarioFigure[] {
  const end = performance.now();
  const last = Math.max(...groups.map((g) => lab.observer.group(g.name)?.wholeAt ?? end));
  return [
    { metric: "completed", value: completed ? 1 : 0, unit: "bool" },
    { metric: "seconds", value: completed ? since(start, last) : DEADLINE_S, unit: "s" },
    { metric: "half_placed_groups", value: lab.observer.halfPlaced(end).length, unit: "groups" },
  ];
}

/** The throughput workload (see the file's comment). */
export function throughput(pods: number): Scenario {
  const size = 8;
  const groups = Array.from({ length: Math.floor(pods / size) }, (_, i): GroupSpec => ({ name: `g${i}`, size, cpuMillis: 100 }));
  const total = groups.length * size;
  return {
    name: "throughput",
    async run(lab) {
      await lab.create(groups, { to: size - 1 });
      await lab.settle(groups, size - 1);
      await lab.refresh();
      const early = lab.observer.boundPods();
      const start = performance.now();
      await lab.create(groups, { from: size - 1 });
      const done = await lab.until(`all ${total} pods bound`, () => lab.observer.boundPods() >= total, start + THROUGHPUT_WAIT_MS);
      const end = performance.now();
      const last = Math.max(...groups.map((g) => lab.observer.group(g.name)?.wholeAt ?? end));
      const seconds = (last - start) / 1000;
      const spans = [...lab.observer.partialSpans(end).values()];
      return [
        { metric: "pods_per_second", value: done ? Math.round(total / seconds) : 0, unit: "1/s" },
        { metric: "seconds_to_place_all", value: done ? tenth(seconds) : THROUGHPUT_WAIT_MS / 1000, unit: "s" },
        { metric: "half_placed_groups", value: lab.observer.halfPlaced(end).length, unit: "groups" },
        { metric: "longest_partial_s", value: tenth(Math.max(0, ...spans) / 1000), unit: "s" },
        { metric: "pods_bound_before_group_complete", value: early, unit: "pods" },
        { metric: "pods", value: total, unit: "pods" },
      ];
    },
  };
}

/** scheduler-plugins #117: two interleaved groups that together overfill the cluster. */
export const interleaved: Scenario = {
  name: "interleaved_117",
  async run(lab, nodes) {
    const groups = [whole("a", Math.floor((3 * nodes) / 4), 20), whole("b", Math.floor((3 * nodes) / 4), 20)];
    const start = performance.now();
    await lab.create(groups, { interleaved: true });
    const done = await lab.until("both groups run", () => lab.observer.whole(groups.map((g) => g.name)), start + DEADLINE_S * 1000);
    return contended(lab, groups, start, done);
  },
};

/** scheduler-plugins #713 (and #397's retry gap): a large group waiting while small ones could run. */
export const starved: Scenario = {
  name: "starved_713",
  async run(lab, nodes) {
    const filler = whole("filler", Math.floor(nodes / 2), 30);
    await lab.create([filler]);
    if (!(await lab.until("the filler placed", () => lab.observer.whole([filler.name]), performance.now() + DEADLINE_S * 1000))) return unplaced(lab, ["large_start_after_room_s"]);
    const large = whole("large", Math.floor((3 * nodes) / 4), 15);
    const smalls = Array.from({ length: Math.floor(nodes / 4) }, (_, i) => whole(`small${i}`, 2, 10));
    const start = performance.now();
    await lab.create([large]);
    await lab.create(smalls);
    const all = [large, ...smalls];
    const done = await lab.until("the large group and every small one run", () => lab.observer.whole(all.map((g) => g.name)), start + DEADLINE_S * 1000);
    const largeAt = lab.observer.group(large.name)?.wholeAt ?? Infinity;
    const smallFirst = smalls.filter((g) => (lab.observer.group(g.name)?.wholeAt ?? Infinity) < largeAt).length;
    const fillerEnded = lab.observer.group(filler.name)?.endedAt;
    const gap = fillerEnded !== undefined && largeAt !== Infinity ? Math.max(0, since(fillerEnded, largeAt)) : DEADLINE_S;
    return [
      ...contended(lab, all, start, done),
      { metric: "small_groups_before_large", value: smallFirst, unit: "groups" },
      { metric: "small_groups", value: smalls.length, unit: "groups" },
      { metric: "large_start_after_room_s", value: gap, unit: "s" },
    ];
  },
};

/** scheduler-plugins #930: one free node, two groups of two arriving interleaved. */
export const race: Scenario = {
  name: "race_930",
  async run(lab, nodes) {
    const filler = whole("filler", nodes - 1, 20);
    await lab.create([filler]);
    if (!(await lab.until("the filler placed", () => lab.observer.whole([filler.name]), performance.now() + DEADLINE_S * 1000))) return unplaced(lab, []);
    const pairs = [whole("pair0", 2, 10), whole("pair1", 2, 10)];
    const start = performance.now();
    await lab.create(pairs, { interleaved: true });
    const done = await lab.until("both pairs run", () => lab.observer.whole(pairs.map((g) => g.name)), start + DEADLINE_S * 1000);
    return contended(lab, pairs, start, done);
  },
};

/** Every scenario, by name (EDGELOOP_BENCH_PEERS_SCENARIOS picks some). */
export function scenarios(pods: number): Scenario[] {
  return [throughput(pods), interleaved, starved, race];
}
