import assert from "node:assert/strict";
import { test } from "node:test";
import { Trigger, type KubeObject } from "../../protocol/index.ts";
import { compactTriggers } from "./triggers.ts";

function pod(name: string, uid: string, resourceVersion: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "ns", uid, resourceVersion, labels: { app: "a" }, annotations: { big: "x".repeat(100) }, ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "cm", uid: "cm-1", controller: true }] },
    spec: { nodeName: "n1", containers: [{ name: "c", image: "i" }] },
    status: { phase: "Running" },
  } as KubeObject;
}

test("a deletion keeps the object's last state; other events name their object only", () => {
  const deleted = pod("p-1", "u-1", "5");
  const compact = compactTriggers([
    { type: "DELETED", kind: "Pod.v1", object: deleted },
    { type: "MODIFIED", kind: "Pod.v1", object: pod("p-2", "u-2", "6") },
  ]);
  assert.deepEqual(compact[0], { type: "DELETED", kind: "Pod.v1", object: deleted });
  assert.deepEqual(compact[1], {
    type: "MODIFIED",
    kind: "Pod.v1",
    object: { apiVersion: "v1", kind: "Pod", metadata: { name: "p-2", namespace: "ns", uid: "u-2", resourceVersion: "6", labels: { app: "a" }, ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "cm", uid: "cm-1", controller: true }] } },
  });
  for (const trigger of compact) assert.equal(Trigger.safeParse(trigger).success, true, "still a protocol trigger");
});

test("repeats of an event of one object are sent once, at the place of the last", () => {
  const compact = compactTriggers([
    { type: "ADDED", kind: "Pod.v1", object: pod("p-2", "u-2", "6") },
    { type: "MODIFIED", kind: "Pod.v1", object: pod("p-2", "u-2", "7") },
    { type: "MODIFIED", kind: "Pod.v1", object: pod("p-3", "u-3", "8") },
    { type: "MODIFIED", kind: "Pod.v1", object: pod("p-2", "u-2", "9") },
    { type: "DELETED", kind: "Pod.v1", object: pod("p-1", "u-1", "10") },
    { type: "DELETED", kind: "Pod.v1", object: pod("p-1", "u-1", "10") },
  ]);
  assert.deepEqual(
    compact.map((t) => `${t.type} ${t.object.metadata.name ?? ""}@${t.object.metadata.resourceVersion ?? ""}`),
    ["ADDED p-2@6", "MODIFIED p-3@8", "MODIFIED p-2@9", "DELETED p-1@10", "DELETED p-1@10"],
    "deletions are never merged: each is a last state",
  );
});

test("objects without a uid are told apart by namespace and name; the input is left as it was", () => {
  const a = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "x" } } as KubeObject;
  const b = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "y" } } as KubeObject;
  const input: Trigger[] = [
    { type: "MODIFIED", kind: "ConfigMap.v1", object: a },
    { type: "MODIFIED", kind: "ConfigMap.v1", object: b },
  ];
  const before = structuredClone(input);
  assert.equal(compactTriggers(input).length, 2);
  assert.deepEqual(input, before);
  assert.deepEqual(compactTriggers([]), []);
});
