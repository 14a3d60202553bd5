import assert from "node:assert/strict";
import { test } from "node:test";
import { RelatedObjects, type KubeObject, type RelatedObjectsInput } from "../index.ts";
import type { RelatedCaches } from "./caches.ts";
import { relatedObjects, type RelatedRequest } from "./related.ts";
import { FakeCache } from "../../test/support/fake-cache.ts";

const POD = { apiVersion: "v1", kind: "Pod" };
const NODE = { apiVersion: "v1", kind: "Node" };

const pod = (namespace: string, name: string, labels: Record<string, string> = {}): KubeObject => ({ ...POD, metadata: { namespace, name, labels } });
const node = (name: string, labels: Record<string, string> = {}): KubeObject => ({ ...NODE, metadata: { name, labels } });

function fixture(): { pods: FakeCache; nodes: FakeCache; caches: RelatedCaches } {
  const pods = new FakeCache(true, { objects: [pod("a", "p1", { app: "web" }), pod("a", "p2", { app: "db" }), pod("b", "p1", { app: "web" })] });
  const nodes = new FakeCache(false, { objects: [node("edge1", { role: "edge" }), node("edge2", { role: "edge" }), node("cloud", { role: "cloud" })] });
  return { pods, nodes, caches: (kind) => (kind.kind === "Pod" ? pods : kind.kind === "Node" ? nodes : undefined) };
}

/** The names (`namespace/name`) of the related objects of one declared kind. */
function found(declared: RelatedObjectsInput, request: RelatedRequest, caches: RelatedCaches): string[] {
  const kind = RelatedObjects.parse(declared);
  const related = relatedObjects([kind], request, caches);
  assert.deepEqual(Object.keys(related), [`${kind.kind}.${kind.apiVersion}`]);
  return (related[`${kind.kind}.${kind.apiVersion}`] ?? []).map((o) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name ?? ""}` : (o.metadata.name ?? ""))).sort();
}

test("sameNamespace: the objects of the request's namespace; none when it names none", () => {
  const { pods, caches } = fixture();
  assert.deepEqual(found({ ...POD, sameNamespace: true }, { namespace: "a", root: {} }, caches), ["a/p1", "a/p2"]);
  assert.deepEqual(pods.listed, ["a"], "one namespace is listed, not the whole cache");
  assert.deepEqual(found({ ...POD, sameNamespace: true }, { namespace: undefined, root: {} }, caches), []);
});

test("selector: a cluster-scoped kind is narrowed by labels", () => {
  const { caches } = fixture();
  assert.deepEqual(found({ ...NODE, selector: { matchLabels: { role: "edge" } } }, { namespace: "a", root: {} }, caches), ["edge1", "edge2"]);
  assert.deepEqual(found({ ...NODE, selector: { matchExpressions: [{ key: "role", operator: "NotIn", values: ["edge"] }] } }, { namespace: undefined, root: {} }, caches), ["cloud"]);
});

test("namedBy (admission): the Node an admitted Pod's spec.nodeName names, looked up by name", () => {
  const { nodes, caches } = fixture();
  const admission = { uid: "u1", namespace: "a", operation: "CREATE", object: { ...pod("a", "new"), spec: { nodeName: "edge2" } } };
  assert.deepEqual(found({ ...NODE, namedBy: ["object.spec.nodeName"] }, { namespace: "a", root: admission }, caches), ["edge2"]);
  assert.deepEqual(nodes.listed, [], "named objects are got, never listed");
  const unscheduled = { ...admission, object: pod("a", "new") };
  assert.deepEqual(found({ ...NODE, namedBy: ["object.spec.nodeName"] }, { namespace: "a", root: unscheduled }, caches), []);
});

test("namedBy (API): a namespaced kind named in the query is looked up in the request's namespace", () => {
  const { caches } = fixture();
  const declared = { ...POD, namedBy: ["query.pod", "body.pods[]"] };
  assert.deepEqual(found(declared, { namespace: "b", root: { query: { pod: "p1" }, body: undefined } }, caches), ["b/p1"]);
  assert.deepEqual(found(declared, { namespace: "a", root: { query: { pod: "p1" }, body: { pods: ["p2", "p1", "missing"] } } }, caches), ["a/p1", "a/p2"], "each name once, missing names skipped");
  assert.deepEqual(found(declared, { namespace: undefined, root: { query: { pod: "p1" }, body: undefined } }, caches), [], "no namespace, no namespaced object");
});

test("narrowings combine: every one given applies", () => {
  const { pods, caches } = fixture();
  assert.deepEqual(found({ ...POD, sameNamespace: true, selector: { matchLabels: { app: "web" } } }, { namespace: "a", root: {} }, caches), ["a/p1"]);
  assert.deepEqual(found({ ...POD, namedBy: ["query.pod"], selector: { matchLabels: { app: "db" } } }, { namespace: "a", root: { query: { pod: "p1" } } }, caches), [], "named, but its labels do not match");
  assert.deepEqual(found({ ...POD, sameNamespace: true, namedBy: ["query.pod"] }, { namespace: "b", root: { query: { pod: "p1" } } }, caches), ["b/p1"]);
  assert.deepEqual(found({ ...NODE, namedBy: ["object.spec.nodeName"], selector: { matchLabels: { role: "cloud" } } }, { namespace: "a", root: { object: { spec: { nodeName: "edge1" } } } }, caches), []);
  assert.deepEqual(pods.listed, ["a"], "namedBy never lists");
});

test("a declared kind without a cache is present and empty", () => {
  const { caches } = fixture();
  const related = relatedObjects([RelatedObjects.parse({ apiVersion: "v1", kind: "Secret", sameNamespace: true })], { namespace: "a", root: {} }, caches);
  assert.deepEqual(related, { "Secret.v1": [] });
});

test("an empty namespace names none: nothing narrowed by namespace leaks from other namespaces", () => {
  const { caches } = fixture();
  assert.deepEqual(found({ ...POD, sameNamespace: true }, { namespace: "", root: {} }, caches), []);
  assert.deepEqual(found({ ...POD, namedBy: ["query.pod"] }, { namespace: "", root: { query: { pod: "p1" } } }, caches), []);
});

test("named: fixed objects whatever the request names, got and never listed", () => {
  const { pods, nodes, caches } = fixture();
  assert.deepEqual(found({ ...POD, named: [{ namespace: "b", name: "p1" }, { namespace: "a", name: "missing" }] }, { namespace: "a", root: {} }, caches), ["b/p1"]);
  assert.deepEqual(found({ ...POD, named: [{ namespace: "b", name: "p1" }] }, { namespace: undefined, root: {} }, caches), ["b/p1"], "a request naming no namespace still gets it");
  assert.deepEqual(found({ ...NODE, named: [{ name: "cloud" }] }, { namespace: "a", root: {} }, caches), ["cloud"]);
  assert.deepEqual([...pods.listed, ...nodes.listed], []);
  assert.deepEqual(found({ ...POD, named: [{ namespace: "b", name: "p1" }], sameNamespace: true }, { namespace: "a", root: {} }, caches), [], "sameNamespace still applies");
});

test("sharingLabels: the objects labelled like the one the request names (a job's pods, from its coordinator's name)", () => {
  const jobPods = new FakeCache(true, {
    objects: [
      pod("a", "j1-coordinator", { job: "j1", role: "coordinator" }),
      pod("a", "j1-collector-x", { job: "j1", role: "collector" }),
      pod("a", "j2-coordinator", { job: "j2", role: "coordinator" }),
      pod("b", "j1-collector-y", { job: "j1", role: "collector" }),
    ],
  });
  const caches: RelatedCaches = (kind) => (kind.kind === "Pod" ? jobPods : undefined);
  const declared = { ...POD, sameNamespace: true, sharingLabels: { namedBy: ["body.coordinator"], labels: ["job"] } };
  assert.deepEqual(found(declared, { namespace: "a", root: { body: { coordinator: "j1-coordinator" } } }, caches), ["a/j1-collector-x", "a/j1-coordinator"], "another namespace's pod with the same label is not sent");
  assert.deepEqual(found(declared, { namespace: "a", root: { body: { coordinator: "missing" } } }, caches), [], "nothing named, nothing shared");
  assert.deepEqual(found(declared, { namespace: "a", root: { body: {} } }, caches), []);
});

test("ownerOf: the controller owner of the object the request names, checked by uid", () => {
  const JOB = { apiVersion: "example.dev/v1", kind: "Job" };
  const owned = (name: string, owner: string, uid: string): KubeObject => ({ ...POD, metadata: { namespace: "a", name, ownerReferences: [{ apiVersion: "example.dev/v1", kind: "Job", name: owner, uid, controller: true }] } });
  const pods = new FakeCache(true, { objects: [owned("c1", "job-1", "u1"), owned("stale", "job-1", "old-uid")] });
  const jobs = new FakeCache(true, { objects: [{ ...JOB, metadata: { namespace: "a", name: "job-1", uid: "u1" } }, { ...JOB, metadata: { namespace: "a", name: "job-2", uid: "u2" } }] });
  const caches: RelatedCaches = (kind) => (kind.kind === "Pod" ? pods : kind.kind === "Job" ? jobs : undefined);
  const declared = { ...JOB, ownerOf: { kind: POD, namedBy: ["query.coordinator"] } };
  assert.deepEqual(found(declared, { namespace: "a", root: { query: { coordinator: "c1" } } }, caches), ["a/job-1"]);
  assert.deepEqual(found(declared, { namespace: "a", root: { query: { coordinator: "stale" } } }, caches), [], "an owner reference to another incarnation finds nothing");
  assert.deepEqual(jobs.listed, [], "owners are got, never listed");
});

test("unlessNamed: a list-everything entry applies only when the request names none of its paths; entries' objects are sent once", () => {
  const { caches } = fixture();
  const everything = RelatedObjects.parse({ ...POD, selector: {}, unlessNamed: ["query.pod"] });
  const one = RelatedObjects.parse({ ...POD, namedBy: ["query.pod"] });
  const names = (query: Record<string, string>): string[] => (relatedObjects([everything, one], { namespace: "a", root: { query } }, caches)["Pod.v1"] ?? []).map((p) => `${p.metadata.namespace ?? ""}/${p.metadata.name ?? ""}`).sort();
  assert.deepEqual(names({}), ["a/p1", "a/p2", "b/p1"]);
  assert.deepEqual(names({ pod: "p1" }), ["a/p1"]);
  const twice = relatedObjects([RelatedObjects.parse({ ...POD, sameNamespace: true }), RelatedObjects.parse({ ...POD, namedBy: ["query.pod"] })], { namespace: "a", root: { query: { pod: "p1" } } }, caches);
  assert.deepEqual(twice["Pod.v1"]?.map((p) => p.metadata.name), ["p1", "p2"], "p1 found by both entries is sent once");
});

test("onlyWhen: an entry applies only to a request holding a value at one of its paths (zero and empty count as none)", () => {
  const { caches } = fixture();
  const declared = { ...NODE, selector: {}, onlyWhen: ["body.learners.gpus"] };
  assert.deepEqual(found(declared, { namespace: "a", root: { body: { learners: { gpus: 2 } } } }, caches), ["cloud", "edge1", "edge2"]);
  assert.deepEqual(found(declared, { namespace: "a", root: { body: { learners: { gpus: "4" } } } }, caches).length, 3);
  for (const body of [{ learners: { gpus: 0 } }, { learners: { replicas: 1 } }, {}, { learners: "x" }]) assert.deepEqual(found(declared, { namespace: "a", root: { body } }, caches), [], JSON.stringify(body));
});
