import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { expiredReplicaSets, findNewReplicaSet, newReplicaSetAnnotations, nextRevision, REVISION, REVISION_HISTORY, sameTemplate, templateHash } from "./deployment-revisions.ts";

const template = (image: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ metadata: { labels: { app: "web", ...extra } }, spec: { containers: [{ name: "c", image }] } });

function rs(name: string, revision: number, image: string, replicas = 0, created = `2026-01-01T00:00:0${revision}Z`): KubeObject {
  return { apiVersion: "apps/v1", kind: "ReplicaSet", metadata: { name, generation: 1, creationTimestamp: created, annotations: { [REVISION]: String(revision) } }, spec: { replicas, template: template(image, { "pod-template-hash": name }) }, status: { replicas, observedGeneration: 1 } } as KubeObject;
}

test("templates are equal ignoring pod-template-hash and what Go's semantic equality ignores (kubectl undo's creationTimestamp: null)", () => {
  const withNull = { metadata: { creationTimestamp: null, labels: { app: "web", "pod-template-hash": "abc" } }, spec: { containers: [{ name: "c", image: "a", resources: {} }] } };
  assert.ok(sameTemplate(withNull, template("a")));
  assert.ok(!sameTemplate(template("a"), template("b")));
  assert.equal(templateHash(withNull), templateHash(template("a")));
  assert.notEqual(templateHash(template("a")), templateHash(template("b")));
});

test("the new ReplicaSet is the oldest with the Deployment's template; the next revision is one past the old ones'", () => {
  const sets = [rs("two", 2, "b", 2), rs("one", 1, "a")];
  assert.equal(findNewReplicaSet(template("a"), sets)?.metadata.name, "one");
  assert.equal(findNewReplicaSet(template("c"), sets), undefined);
  assert.equal(nextRevision([sets[0] as KubeObject]), 3);
  assert.equal(nextRevision([]), 1);
});

test("an old ReplicaSet brought back takes the next revision and keeps its past ones in revision-history", () => {
  const first = newReplicaSetAnnotations({ "kubernetes.io/change-cause": "undo", [REVISION]: "9", "kubectl.kubernetes.io/last-applied-configuration": "{}" }, { [REVISION]: "1" }, 3);
  assert.deepEqual(first, { [REVISION]: "3", [REVISION_HISTORY]: "1", "kubernetes.io/change-cause": "undo" });
  assert.deepEqual(newReplicaSetAnnotations({}, first, 5), { ...first, [REVISION]: "5", [REVISION_HISTORY]: "1,3" });
  // A revision already past the wanted one stays (an old ReplicaSet was deleted meanwhile).
  assert.deepEqual(newReplicaSetAnnotations({}, { [REVISION]: "7" }, 3), { [REVISION]: "7" });
  assert.deepEqual(newReplicaSetAnnotations({}, {}, 1), { [REVISION]: "1" });
});

test("cleanup removes the oldest revisions beyond revisionHistoryLimit, never one with replicas", () => {
  const old = [rs("r3", 3, "c"), rs("r1", 1, "a", 1), rs("r2", 2, "b")];
  assert.deepEqual(expiredReplicaSets(old, 1).map((r) => r.metadata.name), ["r2"]);
  assert.deepEqual(expiredReplicaSets(old, 0).map((r) => r.metadata.name), ["r2", "r3"]);
  assert.deepEqual(expiredReplicaSets(old, 10), []);
});
