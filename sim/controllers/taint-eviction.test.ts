import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { waitForGone } from "../../test/support/cluster-waits.ts";
import { FakeClock } from "../../test/support/fake-clock.ts";
import { SimCluster } from "../api/sim-cluster.ts";
import { taintEvictionController, TaintEvictor, type EvictionClock } from "./taint-eviction.ts";
import { NOT_READY, UNREACHABLE } from "./taints.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const POD = { apiVersion: "v1", kind: "Pod" };

function clockOf(fake: FakeClock): EvictionClock {
  return {
    now: () => fake.now(),
    after(ms: number, fire: () => void): () => void {
      const handle = fake.setTimeout(fire, ms);
      return () => fake.clearTimeout(handle);
    },
  };
}

function node(name: string, keys: readonly string[]): KubeObject {
  return { apiVersion: "v1", kind: "Node", metadata: { name }, spec: { taints: keys.map((key) => ({ key, effect: "NoExecute" })) } } as KubeObject;
}

function pod(name: string, nodeName: string, tolerations: readonly Obj[]): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default", uid: `uid-${name}` }, spec: { nodeName, tolerations, containers: [{ name: "c", image: "i" }] } } as KubeObject;
}

/** A NoExecute toleration of `key`, for `seconds` (forever when undefined). */
const tolerate = (key: string, seconds?: number): Obj => ({ key, operator: "Exists", effect: "NoExecute", ...(seconds === undefined ? {} : { tolerationSeconds: seconds }) });

function harness(): { clock: FakeClock; evictor: TaintEvictor; evicted: string[]; cancelled: string[] } {
  const clock = new FakeClock();
  const evicted: string[] = [];
  const cancelled: string[] = [];
  const evictor = new TaintEvictor({ evict: async (key) => void evicted.push(`${key} at ${clock.now() / 1000}s`), cancelled: (key) => void cancelled.push(key) }, clockOf(clock));
  return { clock, evictor, evicted, cancelled };
}

test("a pod that does not tolerate every NoExecute taint of its node goes at once", async () => {
  const { clock, evictor, evicted } = harness();
  evictor.podUpdated(undefined, pod("p", "n", [tolerate(UNREACHABLE, 300)]));
  evictor.nodeUpdated(undefined, node("n", [UNREACHABLE, "example.com/broken"]));
  await clock.advance(0);
  assert.deepEqual(evicted, ["default/p at 0s"]);
});

test("tolerated: evicted after the least tolerationSeconds of the tolerations used, those without seconds skipped", async () => {
  const { clock, evictor, evicted } = harness();
  evictor.nodeUpdated(undefined, node("n", [UNREACHABLE, "example.com/maintenance"]));
  // The unreachable taint is tolerated forever, the other one for 20 s: 20 s it is.
  evictor.podUpdated(undefined, pod("p", "n", [tolerate(NOT_READY, 300), tolerate(UNREACHABLE), tolerate("example.com/maintenance", 20)]));
  assert.equal(evictor.scheduled("default/p"), 20_000);
  await clock.advance(19_999);
  assert.deepEqual(evicted, []);
  await clock.advance(1);
  assert.deepEqual(evicted, ["default/p at 20s"]);
});

test("only the first toleration of each taint is used; no seconds on any used one is forever; seconds <= 0 is now", async () => {
  const { clock, evictor, evicted } = harness();
  evictor.nodeUpdated(undefined, node("n", [UNREACHABLE]));
  evictor.podUpdated(undefined, pod("first-wins", "n", [tolerate(UNREACHABLE, 30), { operator: "Exists" }]));
  evictor.podUpdated(undefined, pod("forever", "n", [{ operator: "Exists" }, tolerate(UNREACHABLE, 30)]));
  evictor.podUpdated(undefined, pod("zero", "n", [tolerate(UNREACHABLE, 0)]));
  evictor.podUpdated(undefined, pod("negative", "n", [tolerate(UNREACHABLE, -1)]));
  assert.equal(evictor.scheduled("default/forever"), undefined);
  await clock.advance(10 ** 9);
  assert.deepEqual(evicted, ["default/zero at 0s", "default/negative at 0s", "default/first-wins at 30s"]);
});

test("a scheduled eviction keeps its time when the pod's tolerations change to another finite time, longer or shorter", async () => {
  const { clock, evictor, evicted, cancelled } = harness();
  evictor.nodeUpdated(undefined, node("n", [UNREACHABLE]));
  const longer = pod("longer", "n", [tolerate(UNREACHABLE, 20)]);
  const shorter = pod("shorter", "n", [tolerate(UNREACHABLE, 20)]);
  evictor.podUpdated(undefined, longer);
  evictor.podUpdated(undefined, shorter);
  await clock.advance(5_000);
  evictor.podUpdated(longer, pod("longer", "n", [tolerate(UNREACHABLE, 100)]));
  evictor.podUpdated(shorter, pod("shorter", "n", [tolerate(UNREACHABLE, 2)]));
  assert.equal(evictor.scheduled("default/longer"), 20_000, "not moved to 105 s");
  assert.equal(evictor.scheduled("default/shorter"), 20_000, "not moved to 7 s either (processPodOnNode keeps the earlier-started work)");
  await clock.advance(15_000);
  assert.deepEqual(evicted, ["default/longer at 20s", "default/shorter at 20s"]);
  assert.deepEqual(cancelled, []);
});

test("tolerations changed to forever cancel the eviction (with an Event); finite again later counts from then", async () => {
  const { clock, evictor, evicted, cancelled } = harness();
  evictor.nodeUpdated(undefined, node("n", [UNREACHABLE]));
  const p = pod("p", "n", [tolerate(UNREACHABLE, 20)]);
  evictor.podUpdated(undefined, p);
  await clock.advance(5_000);
  const forever = pod("p", "n", [tolerate(UNREACHABLE)]);
  evictor.podUpdated(p, forever);
  assert.deepEqual(cancelled, ["default/p"]);
  assert.equal(evictor.scheduled("default/p"), undefined);
  await clock.advance(3_000);
  evictor.podUpdated(forever, pod("p", "n", [tolerate(UNREACHABLE, 10)]));
  assert.equal(evictor.scheduled("default/p"), 18_000);
  await clock.advance(10_000);
  assert.deepEqual(evicted, ["default/p at 18s"]);
});

test("tolerations changed to leave a taint untolerated evict at once", async () => {
  const { clock, evictor, evicted } = harness();
  evictor.nodeUpdated(undefined, node("n", [UNREACHABLE, "example.com/x"]));
  const p = pod("p", "n", [tolerate(UNREACHABLE, 20), tolerate("example.com/x")]);
  evictor.podUpdated(undefined, p);
  await clock.advance(1_000);
  evictor.podUpdated(p, pod("p", "n", [tolerate(UNREACHABLE, 20), tolerate("example.com/x"), tolerate("example.com/y")]));
  assert.deepEqual(evicted, [], "an added toleration changes nothing");
  evictor.nodeUpdated(node("n", [UNREACHABLE, "example.com/x"]), node("n", [UNREACHABLE, "example.com/z"]));
  await clock.advance(0);
  assert.deepEqual(evicted, ["default/p at 1s"]);
});

test("the taints going away cancel; swapping unreachable for not-ready keeps the scheduled time; a deleted pod's eviction is cancelled", async () => {
  const { clock, evictor, evicted, cancelled } = harness();
  evictor.nodeUpdated(undefined, node("n", [UNREACHABLE]));
  const a = pod("a", "n", [tolerate(NOT_READY, 10), tolerate(UNREACHABLE, 20)]);
  const b = pod("b", "n", [tolerate(NOT_READY, 10), tolerate(UNREACHABLE, 20)]);
  evictor.podUpdated(undefined, a);
  evictor.podUpdated(undefined, b);
  await clock.advance(5_000);
  evictor.nodeUpdated(node("n", [UNREACHABLE]), node("n", [NOT_READY]));
  assert.equal(evictor.scheduled("default/a"), 20_000, "the not-ready toleration's 10 s do not move it");
  evictor.podUpdated(b, undefined);
  assert.deepEqual(cancelled, ["default/b"]);
  evictor.nodeUpdated(node("n", [NOT_READY]), node("n", []));
  assert.deepEqual(cancelled, ["default/b", "default/a"]);
  await clock.advance(60_000);
  assert.deepEqual(evicted, []);
});

test("a pod bound later to a tainted node is scheduled then; node changes other than its NoExecute taints are ignored", async () => {
  const { clock, evictor } = harness();
  const tainted = node("n", [UNREACHABLE]);
  evictor.nodeUpdated(undefined, tainted);
  const pending = pod("p", "", [tolerate(UNREACHABLE, 20)]);
  evictor.podUpdated(undefined, pending);
  assert.equal(evictor.scheduled("default/p"), undefined);
  await clock.advance(2_000);
  evictor.podUpdated(pending, pod("p", "n", [tolerate(UNREACHABLE, 20)]));
  assert.equal(evictor.scheduled("default/p"), 22_000);
  await clock.advance(2_000);
  evictor.nodeUpdated(tainted, { ...tainted, metadata: { name: "n", labels: { x: "y" } } } as KubeObject);
  assert.equal(evictor.scheduled("default/p"), 22_000);
});

test("through the API: the DisruptionTarget condition and a TaintManagerEviction Event, then the pod is deleted", async () => {
  const cluster = new SimCluster();
  const seen: Obj[] = [];
  cluster.watch(POD, (event) => void (event.type === "MODIFIED" && seen.push(event.object)));
  await cluster.create({ apiVersion: "v1", kind: "Node", metadata: { name: "n" }, spec: { taints: [{ key: "example.com/broken", effect: "NoExecute" }] } } as KubeObject);
  await cluster.create({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" }, spec: { nodeName: "n", containers: [{ name: "c", image: "i" }] } } as KubeObject);
  const controller = taintEvictionController();
  controller.start(cluster);
  try {
    await waitForGone(cluster, POD, "default", "p");
    const condition = seen.flatMap((p) => p.status?.conditions ?? []).find((c: Obj) => c.type === "DisruptionTarget");
    assert.deepEqual({ ...condition, lastTransitionTime: "t" }, { type: "DisruptionTarget", status: "True", reason: "DeletionByTaintManager", message: "Taint manager: deleting due to NoExecute taint", lastProbeTime: null, lastTransitionTime: "t" });
    const events = (await cluster.list({ apiVersion: "v1", kind: "Event" }, { namespace: "default" })).items as Obj[];
    const event = events.find((e) => e.reason === "TaintManagerEviction");
    assert.equal(event?.message, "Marking for deletion Pod default/p");
    assert.equal(event?.source.component, "taint-eviction-controller");
  } finally {
    await controller.stop();
  }
});

test("through the API: an eviction counts from when it was scheduled, whatever the pod's later finite tolerations", async () => {
  const fake = new FakeClock();
  const cluster = new SimCluster();
  await cluster.create({ apiVersion: "v1", kind: "Node", metadata: { name: "n" }, spec: { taints: [{ key: UNREACHABLE, effect: "NoExecute", timeAdded: "2020-01-01T00:00:00Z" }] } } as KubeObject);
  await cluster.create({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" }, spec: { nodeName: "n", tolerations: [tolerate(UNREACHABLE, 10)], containers: [{ name: "c", image: "i" }] } } as KubeObject);
  const controller = taintEvictionController(clockOf(fake));
  controller.start(cluster);
  try {
    await fake.advance(5_000);
    const current = (await cluster.get(POD, "default", "p")) as Obj;
    const tolerations = current.spec.tolerations.map((t: Obj) => (t.key === UNREACHABLE ? { ...t, tolerationSeconds: 100 } : t));
    await cluster.patch(POD, "default", "p", { spec: { tolerations } }, "merge");
    await fake.advance(4_999);
    assert.ok(await cluster.find(POD, "default", "p"), "not before 10 s");
    await fake.advance(1);
    await waitForGone(cluster, POD, "default", "p");
  } finally {
    await controller.stop();
  }
});
