import assert from "node:assert/strict";
import { test } from "node:test";
import { gatherGroups, orderQueue } from "./queue.ts";
import { gang, pod } from "./testing/build.ts";

test("a group waits provisionally until all its pods arrive; a pod seen twice counts once", () => {
  const [first, second] = gang("g", 3);
  const { complete, provisional } = gatherGroups([first!, first!, second!]);
  assert.deepEqual(complete, []);
  assert.deepEqual(provisional.map((g) => [g.key, g.have, g.size]), [["default/g", 2, 3]]);
  assert.equal(gatherGroups(gang("g", 3)).complete.length, 1);
});

test("only our unbound, unfinished, undeleted pods are gathered; excluded groups are left out", () => {
  const pods = [pod("a", { scheduler: "default-scheduler" }), pod("b", { nodeName: "n" }), pod("c", { phase: "Failed" }), pod("d"), ...gang("g", 2)];
  const { complete } = gatherGroups(pods, { exclude: new Set(["default/g"]) });
  assert.deepEqual(complete.map((g) => g.key), ["default/fluxnetes-group-default-d"]);
});

test("duration: the largest activeDeadlineSeconds of the group's pods, else the default", () => {
  const { complete } = gatherGroups([pod("a", { group: "g", size: 2, deadline: 30 }), pod("b", { group: "g", size: 2, deadline: 90 }), pod("c")], { defaultDurationSeconds: 3600 });
  assert.deepEqual(complete.map((g) => [g.key, g.durationSeconds]), [["default/fluxnetes-group-default-c", 3600], ["default/g", 90]]);
});

test("queue order: priority highest first, then earliest creation, then namespace/group", () => {
  const pods = [
    ...gang("late-high", 2, { priority: 100, created: 50 }),
    ...gang("early-low", 2, { priority: 0, created: 1 }),
    ...gang("b-tie", 1, { created: 10 }),
    ...gang("a-tie", 1, { created: 10 }),
    pod("mixed-0", { group: "mixed", size: 2, created: 40 }),
    pod("mixed-1", { group: "mixed", size: 2, created: 5, namespace: "default" }),
  ];
  const queue = orderQueue(gatherGroups(pods).complete);
  assert.deepEqual(queue.map((g) => g.key), ["default/late-high", "default/early-low", "default/mixed", "default/a-tie", "default/b-tie"]);
});

test("queue order with the queue's numbers: priority, then the order first seen; neither creation second nor name decides", () => {
  const pods = [...gang("a-first-by-name", 1, { created: 10 }), ...gang("b", 1, { created: 10 }), ...gang("c-created-earlier", 1, { created: 5 }), ...gang("d-high", 1, { created: 20, priority: 5 })];
  const order = new Map([["default/b", 1], ["default/a-first-by-name", 2], ["default/c-created-earlier", 3], ["default/d-high", 4]]);
  const queue = orderQueue(gatherGroups(pods, { order }).complete);
  assert.deepEqual(queue.map((g) => g.key), ["default/d-high", "default/b", "default/a-first-by-name", "default/c-created-earlier"]);
});
