import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../../protocol/index.ts";
import { applyMergePatch } from "../../kit/merge-patch.ts";
import { tolerationChange, tolerationMergePatch, tolerationsAtCreate, tolerationsOf, type Target } from "./tolerations.ts";

const NR = "node.kubernetes.io/not-ready";
const UR = "node.kubernetes.io/unreachable";
const ORIGINAL_NR = "apps.openyurt.io/original-not-ready-toleration-duration";
const ORIGINAL_UR = "apps.openyurt.io/original-unreachable-toleration-duration";

/** The two tolerations the DefaultTolerationSeconds plugin adds to every pod. */
const DEFAULTS = [
  { key: NR, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
  { key: UR, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
];

function pod(options: { tolerations?: unknown[]; annotations?: Record<string, string>; owner?: string } = {}): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "p",
      namespace: "default",
      uid: "uid-p",
      resourceVersion: "7",
      ...(options.annotations ? { annotations: options.annotations } : {}),
      ...(options.owner ? { ownerReferences: [{ apiVersion: "apps/v1", kind: options.owner, name: "o", uid: "uid-o", controller: true }] } : {}),
    },
    spec: { nodeName: "n", containers: [{ name: "c" }], tolerations: structuredClone(options.tolerations ?? DEFAULTS) },
  } as KubeObject;
}

const set = (seconds: number | undefined): Target => ({ kind: "set", seconds });
const RESTORE: Target = { kind: "restore" };

/** The pod after its change, as the API server stores the merge patch. */
function changed(before: KubeObject, target: Target): KubeObject {
  const change = tolerationChange(before, target);
  assert.ok(change, "a change was expected");
  const after = applyMergePatch(before, tolerationMergePatch(before, change)) as KubeObject;
  assertOnlySecondsChanged(tolerationsOf(before), tolerationsOf(after));
  return after;
}

/** What the API server accepts of an update: the same tolerations, in the same places, differing at most in tolerationSeconds. */
function assertOnlySecondsChanged(before: readonly unknown[], after: readonly unknown[]): void {
  assert.equal(after.length, before.length, "no toleration added or removed");
  const strip = (t: unknown): unknown => {
    const { tolerationSeconds: _, ...rest } = t as Record<string, unknown>;
    return rest;
  };
  assert.deepEqual(after.map(strip), before.map(strip), "nothing but tolerationSeconds changed");
}

test("set: the two tolerations get the seconds, their originals kept as numbers", () => {
  const after = changed(pod(), set(100));
  assert.deepEqual(tolerationsOf(after), [
    { key: NR, operator: "Exists", effect: "NoExecute", tolerationSeconds: 100 },
    { key: UR, operator: "Exists", effect: "NoExecute", tolerationSeconds: 100 },
  ]);
  assert.deepEqual(after.metadata.annotations, { [ORIGINAL_NR]: "300", [ORIGINAL_UR]: "300" });
});

test("set forever: the seconds field is omitted, not 0 (0 evicts at once)", () => {
  const after = changed(pod(), set(undefined));
  for (const toleration of tolerationsOf(after)) assert.equal(Object.hasOwn(toleration as object, "tolerationSeconds"), false);
  assert.deepEqual(after.metadata.annotations, { [ORIGINAL_NR]: "300", [ORIGINAL_UR]: "300" });
});

test("set is idempotent, and a second target keeps the first originals", () => {
  const first = changed(pod(), set(100));
  assert.equal(tolerationChange(first, set(100)), undefined, "nothing to change at the target");
  const second = tolerationChange(first, set(600));
  assert.deepEqual(second?.annotations, {}, "the originals are not overwritten by our own seconds");
  const after = changed(first, set(600));
  assert.deepEqual(tolerationsOf(after).map((t) => (t as { tolerationSeconds?: number }).tolerationSeconds), [600, 600]);
  assert.deepEqual(after.metadata.annotations, { [ORIGINAL_NR]: "300", [ORIGINAL_UR]: "300" });
});

test("restore: the originals come back and their annotations go; then nothing is left to do", () => {
  const autonomous = changed(pod({ annotations: { keep: "me" } }), set(undefined));
  const change = tolerationChange(autonomous, RESTORE);
  assert.deepEqual(change?.annotations, { [ORIGINAL_NR]: null, [ORIGINAL_UR]: null });
  const restored = changed(autonomous, RESTORE);
  assert.deepEqual(tolerationsOf(restored), DEFAULTS);
  assert.deepEqual(restored.metadata.annotations, { keep: "me" });
  assert.equal(tolerationChange(restored, RESTORE), undefined);
  assert.equal(tolerationChange(pod(), RESTORE), undefined, "a pod never changed has nothing to restore");
});

test("a toleration without seconds is kept as \"\" and restored without seconds", () => {
  const forever = [{ key: NR, operator: "Exists", effect: "NoExecute" }, DEFAULTS[1]];
  const after = changed(pod({ tolerations: forever }), set(100));
  assert.deepEqual(after.metadata.annotations, { [ORIGINAL_NR]: "", [ORIGINAL_UR]: "300" });
  const restored = changed(after, RESTORE);
  assert.deepEqual(tolerationsOf(restored), forever);
});

test("only the concerned tolerations change: NoExecute not-ready/unreachable, operator Exists or Equal (or none)", () => {
  const tolerations = [
    { key: "gpu", operator: "Exists", effect: "NoSchedule" },
    { key: NR, operator: "Exists", effect: "NoSchedule" },
    { key: NR, operator: "Equal", effect: "NoExecute", tolerationSeconds: 30 },
    { key: UR, effect: "NoExecute", tolerationSeconds: 60 },
    { operator: "Exists" },
    { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 },
  ];
  const after = changed(pod({ tolerations }), set(100));
  assert.deepEqual(tolerationsOf(after), [
    { key: "gpu", operator: "Exists", effect: "NoSchedule" },
    { key: NR, operator: "Exists", effect: "NoSchedule" },
    { key: NR, operator: "Equal", effect: "NoExecute", tolerationSeconds: 100 },
    { key: UR, effect: "NoExecute", tolerationSeconds: 100 },
    { operator: "Exists" },
    { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 },
  ]);
  assert.deepEqual(after.metadata.annotations, { [ORIGINAL_NR]: "30", [ORIGINAL_UR]: "60" });
  assert.deepEqual(tolerationsOf(changed(after, RESTORE)), tolerations);
});

test("nothing is added: a pod without the tolerations is left as it is", () => {
  assert.equal(tolerationChange(pod({ tolerations: [] }), set(100)), undefined);
  const onlyNotReady = changed(pod({ tolerations: [DEFAULTS[0]] }), set(100));
  assert.equal(tolerationsOf(onlyNotReady).length, 1);
  assert.deepEqual(onlyNotReady.metadata.annotations, { [ORIGINAL_NR]: "300" }, "no original for a toleration the pod does not have");
});

test("a taint already at the target gets no original; only the other one changes", () => {
  const tolerations = [{ ...DEFAULTS[0], tolerationSeconds: 100 }, DEFAULTS[1]];
  const change = tolerationChange(pod({ tolerations }), set(100));
  assert.deepEqual(change?.annotations, { [ORIGINAL_UR]: "300" });
  const restored = changed(changed(pod({ tolerations }), set(100)), RESTORE);
  assert.deepEqual(tolerationsOf(restored), tolerations);
});

test("several tolerations of one taint all change; the original kept is the earliest eviction", () => {
  const tolerations = [DEFAULTS[0], { key: NR, operator: "Exists", effect: "NoExecute", tolerationSeconds: 600 }, { key: NR, operator: "Exists", effect: "NoExecute" }];
  const after = changed(pod({ tolerations }), set(undefined));
  assert.deepEqual(after.metadata.annotations, { [ORIGINAL_NR]: "300" });
  assert.ok(tolerationsOf(after).every((t) => !Object.hasOwn(t as object, "tolerationSeconds")));
  const restored = changed(after, RESTORE);
  assert.deepEqual(tolerationsOf(restored).map((t) => (t as { tolerationSeconds?: number }).tolerationSeconds), [300, 300, 300], "the taint manager evicted at the smallest: it still does");
});

test("an unreadable kept original restores the DefaultTolerationSeconds 300", () => {
  const edited = pod({ tolerations: DEFAULTS.map((t) => ({ ...t, tolerationSeconds: 5 })), annotations: { [ORIGINAL_NR]: "five minutes", [ORIGINAL_UR]: "-1" } });
  assert.deepEqual(tolerationsOf(changed(edited, RESTORE)).map((t) => (t as { tolerationSeconds?: number }).tolerationSeconds), [300, -1]);
});

test("DaemonSet and mirror pods are left alone", () => {
  assert.equal(tolerationChange(pod({ owner: "DaemonSet" }), set(100)), undefined);
  assert.equal(tolerationChange(pod({ annotations: { "kubernetes.io/config.mirror": "abc123" } }), set(100)), undefined);
  assert.deepEqual(tolerationsAtCreate(pod({ owner: "DaemonSet" }), set(100)), []);
  assert.ok(tolerationChange(pod({ owner: "ReplicaSet" }), set(100)), "other owners are changed");
});

test("merge patch: the tolerations only when they differ, the annotations only when some change", () => {
  const tolerations = [{ ...DEFAULTS[0], tolerationSeconds: 100 }, { ...DEFAULTS[1], tolerationSeconds: 100 }];
  const already = pod({ tolerations, annotations: { [ORIGINAL_NR]: "300", [ORIGINAL_UR]: "300" } });
  const noSecondsChange = pod({ tolerations: DEFAULTS, annotations: { [ORIGINAL_NR]: "300", [ORIGINAL_UR]: "300" } });
  const change = tolerationChange(noSecondsChange, RESTORE);
  assert.ok(change);
  assert.deepEqual(tolerationMergePatch(noSecondsChange, change), { metadata: { annotations: { [ORIGINAL_NR]: null, [ORIGINAL_UR]: null } } });
  const restore = tolerationChange(already, RESTORE);
  assert.ok(restore);
  assert.deepEqual(tolerationMergePatch(already, restore), { metadata: { annotations: { [ORIGINAL_NR]: null, [ORIGINAL_UR]: null } }, spec: { tolerations: DEFAULTS } });
});

test("at CREATE: a JSONPatch of the tolerations and the originals, whether or not the pod has annotations", () => {
  assert.deepEqual(tolerationsAtCreate(pod(), set(100)), [
    { op: "add", path: "/spec/tolerations", value: DEFAULTS.map((t) => ({ ...t, tolerationSeconds: 100 })) },
    { op: "add", path: "/metadata/annotations", value: { [ORIGINAL_NR]: "300", [ORIGINAL_UR]: "300" } },
  ]);
  assert.deepEqual(tolerationsAtCreate(pod({ annotations: { a: "b" } }), set(undefined)), [
    { op: "add", path: "/spec/tolerations", value: DEFAULTS.map(({ tolerationSeconds: _, ...t }) => t) },
    { op: "add", path: "/metadata/annotations/apps.openyurt.io~1original-not-ready-toleration-duration", value: "300" },
    { op: "add", path: "/metadata/annotations/apps.openyurt.io~1original-unreachable-toleration-duration", value: "300" },
  ]);
  assert.deepEqual(tolerationsAtCreate(pod({ tolerations: [], annotations: { [ORIGINAL_NR]: "30" } }), RESTORE), [
    { op: "remove", path: "/metadata/annotations/apps.openyurt.io~1original-not-ready-toleration-duration" },
  ]);
  assert.deepEqual(tolerationsAtCreate(pod(), RESTORE), []);
});
