/**
 * The cost of one gang scheduling pass as the queue grows, in process: the code the
 * `GangQueue` Durable Object runs (`GangQueueLogic` over SQL), here in Node 24 over an
 * in-memory `node:sqlite` database, not in workerd over the object's storage (whose
 * SQLite and JSON are the same engines, but whose writes go to a durable log): a
 * measurement of the pass's own work, load and write-back included.
 *
 * The cluster: {@link NODES} nodes of 8 cpu / 32 Gi, every one but a few running another
 * scheduler's pod that leaves half a cpu free, so that of N pending groups of 8 one-cpu
 * pods only about a tenth can start (one per empty node). The first pass (loading the
 * list) starts those; each timed pass then sees the other nine tenths queued behind the
 * reservation, walks them all, and writes back their outcomes.
 */
import { DatabaseSync } from "node:sqlite";
import { rawNode, rawPod } from "../../functions/controllers/gang/core/testing/build.ts";
import { GangQueueLogic } from "../../functions/controllers/gang/queue/index.ts";
import { batch, event, list } from "../../functions/controllers/gang/queue/testing/batches.ts";
import { SqliteSql } from "../../functions/kit/testing/sqlite.ts";
import { percentile } from "./util.ts";

/** Nodes of the cluster the passes run on. */
const NODES = 1_000;
/** Pods per group. */
const GROUP_SIZE = 8;
/** The Durable Object's options (functions/controllers/gang/durable.ts). */
const OPTIONS = { arrivalTimeoutSeconds: 300, defaultDurationSeconds: 3600 } as const;

/** The name of node `i`. */
function nodeName(i: number): string {
  return `node-${String(i).padStart(5, "0")}`;
}

/** The raw objects of the cluster: nodes, others' pods filling all but `empty` nodes, and `groups` pending groups. */
function clusterObjects(groups: number, empty: number): Record<string, unknown>[] {
  const objects: Record<string, unknown>[] = [];
  for (let i = 0; i < NODES; i += 1) objects.push(rawNode(nodeName(i), { cpu: "8", memory: "32Gi", pods: "110" }));
  for (let i = empty; i < NODES; i += 1) {
    objects.push(rawPod(`web-${i}`, { namespace: "web", scheduler: "default-scheduler", nodeName: nodeName(i), cpu: "7500m", memory: "4Gi" }));
  }
  for (let g = 0; g < groups; g += 1) {
    for (let i = 0; i < GROUP_SIZE; i += 1) {
      objects.push(rawPod(`job-${g}-${i}`, { namespace: "batch", group: `job-${g}`, size: GROUP_SIZE, cpu: "1", memory: "1Gi", created: g % 3600 }));
    }
  }
  return objects;
}

/**
 * The median time (ms) of `runs` passes with `groups` pending groups of 8 stored: each pass
 * is `apply` of a batch of one event (a node's heartbeat), which stores it and runs a full
 * pass, as every events batch the relay sends does.
 */
export function passMs(groups: number, runs: number): number {
  const db = new DatabaseSync(":memory:");
  try {
    const logic = loaded(db, groups);
    const times: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      const heartbeat = event("MODIFIED", rawNode(nodeName(run % NODES), { cpu: "8", memory: "32Gi", pods: "110", labels: { heartbeat: String(run) } }));
      const started = performance.now();
      logic.apply(batch([heartbeat], 3601 + run));
      times.push(performance.now() - started);
    }
    return percentile(times.sort((a, b) => a - b), 50);
  } finally {
    db.close();
  }
}

/** A scheduler over `db` that has applied the list of a cluster with `groups` pending groups of 8 (one pass). */
function loaded(db: DatabaseSync, groups: number): GangQueueLogic {
  const logic = new GangQueueLogic(new SqliteSql(db), OPTIONS);
  logic.apply(list(clusterObjects(groups, Math.max(1, Math.round(groups / 10))), 3600));
  return logic;
}

/** What `GET /v1/gangs` costs the object, median ms of `runs` reads. */
export interface InspectMs {
  /** A read answered from the rows the last pass left, already built (every read but the first after a pass). */
  readonly kept: number;
  /** The first read after a pass: the rows built from what the pass left. */
  readonly first: number;
  /** A read of an object just started, with no rows kept: one pass, computed without writing (what every read cost before). */
  readonly fresh: number;
}

/** The cost of `GET /v1/gangs`'s call to the object (`groups(nowMs)`) with `groups` pending groups of 8 stored. */
export function inspectMs(groups: number, runs: number): InspectMs {
  const db = new DatabaseSync(":memory:");
  try {
    const logic = loaded(db, groups);
    // `timed`: `read` returns its own time (what it does before the read is not counted).
    const time = (read: () => unknown, timed = false): number => {
      const times: number[] = [];
      for (let run = 0; run < runs; run += 1) {
        const started = performance.now();
        const own = read();
        times.push(timed ? Number(own) : performance.now() - started);
      }
      return percentile(times.sort((a, b) => a - b), 50);
    };
    const now = Date.parse(batch([], 3601).now);
    const kept = time(() => logic.groups(now));
    let heartbeat = 0;
    const first = time(() => {
      heartbeat += 1;
      logic.apply(batch([event("MODIFIED", rawNode(nodeName(0), { cpu: "8", memory: "32Gi", pods: "110", labels: { heartbeat: String(heartbeat) } }))], 3601));
      const started = performance.now();
      logic.groups(now);
      return performance.now() - started;
    }, true);
    return { kept, first, fresh: time(() => new GangQueueLogic(new SqliteSql(db), OPTIONS).groups(now)) };
  } finally {
    db.close();
  }
}
