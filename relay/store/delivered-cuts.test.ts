import assert from "node:assert/strict";
import { test } from "node:test";
import { ControllerManifest, type KubeObject, type Watch } from "../../protocol/index.ts";
import { fromCache, WHOLE } from "../../protocol/snapshot/fields.ts";
import { DeliveredCuts } from "./delivered-cuts.ts";

const byNode: Watch = { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "field", path: "spec.nodeName" }, fields: ["status.phase"] };
const whole: Watch = { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "self" } };
const pod = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "ns", uid: `u-${name}` }, spec: { nodeName: "n1", containers: [{ name: "c", image: "i" }] }, status: { phase: "Running" } }) as KubeObject;
const keptWhole = { trimmed: (): boolean => false };
const keptCut = { trimmed: (): boolean => true };
/** `object` as `watch` delivers it from `cache`, through the cuts (as the snapshot delivery cuts a deletion). */
const cut = (cuts: DeliveredCuts, object: KubeObject, watch: Watch, cache: typeof keptWhole): KubeObject => fromCache(cuts.ofWatch(watch), cache)(object);

test("an object the cache keeps whole is cut to the watch's fields once: the same object gives the same cut while it is held", () => {
  const cuts = new DeliveredCuts();
  const held = pod("a");
  const first = cut(cuts, held, byNode, keptWhole);
  assert.deepEqual(first, { apiVersion: "v1", kind: "Pod", metadata: { name: "a", namespace: "ns", uid: "u-a" }, spec: { nodeName: "n1" }, status: { phase: "Running" } });
  assert.equal(cut(cuts, held, byNode, keptWhole), first, "not cut again");
  assert.equal(cuts.ofWatch(byNode)(held), first, "the snapshot builder's projector shares the cut");
  assert.notEqual(cut(cuts, pod("a"), byNode, keptWhole), first, "another object (a newer state) is cut anew");
});

test("an object the cache holds cut already, or a watch that reads whole objects, is delivered as it is", () => {
  const cuts = new DeliveredCuts();
  const held = pod("a");
  assert.equal(cut(cuts, held, byNode, keptCut), held);
  assert.equal(cut(cuts, held, whole, keptWhole), held);
  assert.equal(cuts.ofWatch(whole), WHOLE, "whole stays the builder's WHOLE");
  const controller = ControllerManifest.parse({ name: "c", delivery: "events", watches: [byNode] });
  assert.equal(cuts.ofKind(controller, "Pod.v1"), cuts.ofKind(controller, "Pod.v1"), "one projector per controller and kind");
  assert.equal(cuts.ofKind(controller, "Pod.v1")(held), cuts.ofKind(controller, "Pod.v1")(held));
});
