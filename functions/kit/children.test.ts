import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { syncNamedChild } from "./children.ts";
import { SPEC_HASH_LABEL } from "./labels.ts";

const parent: KubeObject = { apiVersion: "example.io/v1", kind: "Parent", metadata: { namespace: "ns", name: "p", uid: "u-live" } };
const desired: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { namespace: "ns", name: "p-web", labels: { [SPEC_HASH_LABEL]: "h1" } } };

function owned(uid: string, hash: string): KubeObject {
  return { ...desired, metadata: { ...desired.metadata, uid: `d-${uid}`, labels: { [SPEC_HASH_LABEL]: hash }, ownerReferences: [{ apiVersion: "example.io/v1", kind: "Parent", name: "p", uid, controller: true }] } };
}

test("a same-named object controlled by someone else (a child mapped by label, say) is waited for: never created over, patched or deleted", () => {
  const outcome = syncNamedChild({ parent, desired, observed: [owned("u-older", "stale")], deleted: [], patchOf: () => ({}) });
  assert.deepEqual(outcome, { actions: [], wait: true, claimed: false });
});

test("a child of ours is patched when its spec-hash differs, left alone when it matches; a missing one is created", () => {
  const patched = syncNamedChild({ parent, desired, observed: [owned("u-live", "stale")], deleted: [], patchOf: () => ({ spec: {} }) });
  assert.deepEqual(patched.actions.map((a) => a.type), ["patch", "event"]);
  assert.deepEqual(syncNamedChild({ parent, desired, observed: [owned("u-live", "h1")], deleted: [], patchOf: () => ({}) }).actions, []);
  const created = syncNamedChild({ parent, desired, observed: [], deleted: [], patchOf: () => ({}) });
  assert.deepEqual(created.actions.map((a) => a.type), ["create", "event"]);
});
