import assert from "node:assert/strict";
import { test } from "node:test";
import type { Action, KubeObject } from "../../../../../protocol/index.ts";
import { channelKey, decodeFrame } from "./frames.ts";
import { MAX_METRICS, metricsOf, receive, REFUSED_EVENT_REASON, type ReceiveContext } from "./status.ts";
import { dataset, flJob, jiService, LC_HELLO, lcFrame, model } from "./testing/objects.ts";

const NOW = "2026-11-27T12:00:00Z";

const job = flJob("fl", ["edge-1"], "global-model", {
  status: {
    phase: "Running",
    conditions: [
      { type: "Training", status: "True", reason: "WorkersRunning", message: "2 of 2 workers running", lastTransitionTime: "2026-11-27T11:00:00Z", lastHeartbeatTime: "2026-11-27T11:00:00Z" },
      { type: "Complete", status: "False", reason: "WorkersRunning", message: "x" },
    ],
  },
});
const objects = [job, model("global-model"), dataset("d1", "edge-1"), jiService("ji", "edge-1"), dataset("elsewhere", "edge-2")];

/** A context where node `edge-1` was sent the given keys. */
function context(sent: readonly string[] = ["federatedlearningjob/default/fl", "dataset/default/d1", "jointinferenceservice/default/ji"]): ReceiveContext {
  return {
    peer: "edge-1",
    now: NOW,
    find: (kind, namespace, name) => objects.find((o) => o.kind === kind && o.metadata.namespace === namespace && o.metadata.name === name),
    sentToPeer: (key) => sent.includes(key),
  };
}

function answer(frame: string, ctx = context()): ReturnType<typeof receive> {
  return receive(decodeFrame(frame), ctx);
}

const flReport = (round: number, metrics?: Record<string, unknown>): unknown => ({ phase: "train", status: "running", output: { models: metrics ? [{ format: "pb", url: "/m", metrics }] : [], ownerInfo: { currentRound: round, updateTime: "2026-11-27T11:59:00Z" } } });

test("the hello is accepted and does nothing", () => {
  assert.deepEqual(answer(LC_HELLO), { accepted: true, actions: [] });
});

test("an FL round report updates the ONE Training condition in place (DoTraining, Round N reaches at T) at the job's resourceVersion, keeping the others", () => {
  const reply = answer(lcFrame("federatedlearningjob", "fl", "status", flReport(3)));
  assert.equal(reply.accepted, true);
  assert.deepEqual(reply.actions, [
    {
      type: "status",
      target: { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob", namespace: "default", name: "fl", uid: "uid-fl" },
      status: {
        conditions: [
          { type: "Training", status: "True", reason: "DoTraining", message: "Round 3 reaches at 2026-11-27T11:59:00Z", lastTransitionTime: "2026-11-27T11:00:00Z", lastHeartbeatTime: NOW },
          { type: "Complete", status: "False", reason: "WorkersRunning", message: "x" },
        ],
      },
      resourceVersion: "7",
    },
  ]);
});

test("the same round reported again writes nothing; round 0 (no progress yet) writes no condition", () => {
  const reported = { ...job, status: { conditions: [{ type: "Training", status: "True", reason: "DoTraining", message: "Round 3 reaches at 2026-11-27T11:59:00Z" }] } } as KubeObject;
  const ctx = { ...context(), find: () => reported };
  assert.deepEqual(answer(lcFrame("federatedlearningjob", "fl", "status", flReport(3)), ctx).actions, []);
  assert.deepEqual(answer(lcFrame("federatedlearningjob", "fl", "status", flReport(0))).actions, []);
});

test("an FL report's first model's metrics go to the aggregation worker's Model: status.metrics as ConvertMapToMetrics makes them, and updateTime", () => {
  const reply = answer(lcFrame("federatedlearningjob", "fl", "status", flReport(2, { recall: 0.9, accuracy: [0.8], name: "m1" })));
  const modelWrite = reply.actions[0];
  assert.deepEqual(modelWrite, {
    type: "status",
    target: { apiVersion: "sedna.io/v1alpha1", kind: "Model", namespace: "default", name: "global-model", uid: "uid-global-model" },
    status: { metrics: [{ key: "accuracy", value: "[0.8]" }, { key: "name", value: "m1" }, { key: "recall", value: "0.9" }], updateTime: NOW },
  });
  assert.equal(reply.actions[1]?.type, "status", "then the job's condition");
});

test("a finished job's late round report writes its model's metrics but no Training condition", () => {
  const done = { ...job, status: { phase: "Succeeded", conditions: [{ type: "Complete", status: "True", reason: "TrainingCompleted" }] } } as KubeObject;
  const ctx = { ...context(), find: (kind: string, namespace: string, name: string) => (kind === "FederatedLearningJob" ? done : context().find(kind as "Model", namespace, name)) };
  const reply = answer(lcFrame("federatedlearningjob", "fl", "status", flReport(9, { accuracy: 0.95 })), ctx);
  assert.deepEqual(reply.actions.map((a) => (a.type === "status" ? a.target.kind : a.type)), ["Model"]);
});

test("a Dataset report writes its status, updateTime defaulted to now or kept as reported", () => {
  assert.deepEqual(answer(lcFrame("dataset", "d1", "status", { numberOfSamples: 120 })).actions, [
    { type: "status", target: { apiVersion: "sedna.io/v1alpha1", kind: "Dataset", namespace: "default", name: "d1", uid: "uid-d1" }, status: { numberOfSamples: 120, updateTime: NOW } },
  ]);
  const at = "2026-11-27T11:00:00Z";
  assert.deepEqual((answer(lcFrame("dataset", "d1", "status", { numberOfSamples: 5, updateTime: at })).actions[0] as Extract<Action, { type: "status" }>).status, { numberOfSamples: 5, updateTime: at });
});

test("a JI report's service info (less its times) becomes the service's status.metrics; an empty one writes nothing", () => {
  const reply = answer(lcFrame("jointinferenceservice", "ji", "status", { phase: "inference", status: "running", output: { ownerInfo: { inferenceNumber: 10, hardExampleNumber: 2, startTime: "t", updateTime: "t" } } }));
  assert.deepEqual(reply.actions, [
    { type: "status", target: { apiVersion: "sedna.io/v1alpha1", kind: "JointInferenceService", namespace: "default", name: "ji", uid: "uid-ji" }, status: { metrics: [{ key: "hardExampleNumber", value: "2" }, { key: "inferenceNumber", value: "10" }] } },
  ]);
  assert.deepEqual(answer(lcFrame("jointinferenceservice", "ji", "status", { phase: "inference", output: null })), { accepted: true, actions: [] });
});

/** The refusal cases: the frame, its reason, and whether a Warning Event goes on an existing object. */
const refusals: readonly (readonly [string, string, string, boolean])[] = [
  ["a malformed frame", "{", "malformed", false],
  ["content that is not JSON, on an object that exists", JSON.stringify({ header: { namespace: "default", resourceKind: "dataset", resourceName: "d1", operation: "status" }, content: btoa("nope") }), "malformed", true],
  ["an operation other than status", lcFrame("dataset", "d1", "insert", {}), "unknown-operation", true],
  ["a kind upstream takes no status of", lcFrame("model", "global-model", "status", {}), "unsupported-kind", true],
  ["an unknown kind", lcFrame("incrementallearningjob", "x", "status", {}), "unsupported-kind", false],
  ["an object not sent to this node", lcFrame("dataset", "elsewhere", "status", { numberOfSamples: 1 }), "not-sent-to-peer", true],
  ["an object not sent that does not exist", lcFrame("dataset", "ghost", "status", { numberOfSamples: 1 }), "not-sent-to-peer", false],
  ["a Dataset status without its sample count", lcFrame("dataset", "d1", "status", { updateTime: "x" }), "malformed", true],
  ["an FL report of the wrong shape", lcFrame("federatedlearningjob", "fl", "status", { output: { ownerInfo: { currentRound: "three" } } }), "malformed", true],
  ["too many metrics", lcFrame("federatedlearningjob", "fl", "status", flReport(1, Object.fromEntries(Array.from({ length: MAX_METRICS + 1 }, (_, i) => [`m${i}`, i])))), "too-large", true],
];

for (const [what, frame, reason, event] of refusals) {
  test(`${what} is refused as ${reason}${event ? ", with a Warning Event on the object" : ""}`, () => {
    const reply = answer(frame);
    assert.equal(reply.accepted, false);
    assert.equal(reply.reason, reason);
    assert.ok(reply.message);
    const actions = reply.actions ?? [];
    assert.deepEqual(actions.map((a) => a.type), event ? ["event"] : []);
    if (event) {
      const warning = actions[0] as Extract<Action, { type: "event" }>;
      assert.equal(warning.eventType, "Warning");
      assert.equal(warning.reason, REFUSED_EVENT_REASON);
      assert.match(warning.message, new RegExp(`node edge-1 refused \\(${reason}\\)`));
    }
  });
}

test("a report on an object sent to the node (its delete not yet written) that no longer exists is refused as object-gone", () => {
  const reply = answer(lcFrame("dataset", "gone", "status", { numberOfSamples: 1 }), context([channelKey("dataset", "default", "gone")]));
  assert.deepEqual([reply.accepted, reply.reason, reply.actions], [false, "object-gone", []]);
});

test("metricsOf keeps strings, writes other values as JSON, orders by key and refuses too many", () => {
  assert.deepEqual(metricsOf({ b: "x", a: { n: 1 }, c: null }), [{ key: "a", value: '{"n":1}' }, { key: "b", value: "x" }, { key: "c", value: "null" }]);
  assert.equal(metricsOf({ a: "x".repeat(2000) }), undefined);
});
