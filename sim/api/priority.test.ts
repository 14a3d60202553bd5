import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { apiError } from "../../test/support/api-error.ts";
import { SimCluster } from "./sim-cluster.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const PC = { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass" };
const POD = { apiVersion: "v1", kind: "Pod" };

const pc = (name: string, value: unknown, extra: Obj = {}): KubeObject => ({ ...PC, metadata: { name }, value, ...extra }) as KubeObject;
const pod = (name: string, spec: Obj = {}): KubeObject => ({ ...POD, metadata: { name, namespace: "default" }, spec: { containers: [{ name: "c", image: "busybox" }], ...spec } }) as KubeObject;

test("a new cluster serves PriorityClasses with the two system classes; they cannot be deleted", async () => {
  const cluster = new SimCluster();
  const names = (await cluster.list(PC)).items.map((c) => [c.metadata.name, (c as Obj).value]);
  assert.deepEqual(names.sort(), [["system-cluster-critical", 2_000_000_000], ["system-node-critical", 2_000_001_000]]);
  const refused = await apiError(cluster.delete(PC, undefined, "system-cluster-critical"));
  assert.equal(refused.code, 403);
  assert.ok(await cluster.find(PC, undefined, "system-cluster-critical"));
  assert.equal(cluster.resources().find((r) => r.plural === "priorityclasses")?.namespaced, false);
});

test("PriorityClass through the pipeline: defaulted, validated (422), decoded (400), one default (403), value immutable", async () => {
  const cluster = new SimCluster();
  const created = (await cluster.create(pc("high", 1000, { description: "d" }))) as Obj;
  assert.equal(created.preemptionPolicy, "PreemptLowerPriority");
  assert.equal(created.value, 1000);
  const tooHigh = await apiError(cluster.create(pc("huge", 1_000_000_001)));
  assert.equal(tooHigh.code, 422);
  assert.equal(tooHigh.message, 'PriorityClass.scheduling.k8s.io "huge" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000');
  assert.equal((await apiError(cluster.create(pc("system-x", 1)))).code, 422);
  assert.equal((await apiError(cluster.create(pc("text", "1000")))).code, 400);
  await cluster.create(pc("default-one", 10, { globalDefault: true }));
  const second = await apiError(cluster.create(pc("default-two", 20, { globalDefault: true })));
  assert.equal(second.code, 403);
  assert.equal(second.message, 'priorityclasses.scheduling.k8s.io "default-two" is forbidden: PriorityClass default-one is marked as default. Only one default can exist');
  const changed = await apiError(cluster.patch(PC, undefined, "high", { value: 2000 }, "merge"));
  assert.equal(changed.code, 422);
  assert.equal(changed.message, 'PriorityClass.scheduling.k8s.io "high" is invalid: value: Forbidden: may not be changed in an update.');
  const described = (await cluster.patch(PC, undefined, "high", { description: "new" }, "merge")) as Obj;
  assert.equal(described.description, "new");
  assert.equal(described.preemptionPolicy, "PreemptLowerPriority");
});

test("Priority admission on pods: class resolved, global default applied, unknown class 403, priority kept on update", async () => {
  const cluster = new SimCluster();
  const plain = (await cluster.create(pod("plain"))) as Obj;
  assert.equal(plain.spec.priority, 0);
  assert.equal(plain.spec.preemptionPolicy, "PreemptLowerPriority");
  assert.equal(plain.spec.priorityClassName, undefined);
  const critical = (await cluster.create(pod("critical", { priorityClassName: "system-node-critical" }))) as Obj;
  assert.equal(critical.spec.priority, 2_000_001_000);
  await cluster.create(pc("batch", 50, { globalDefault: true, preemptionPolicy: "Never" }));
  const defaulted = (await cluster.create(pod("defaulted"))) as Obj;
  assert.equal(defaulted.spec.priority, 50);
  assert.equal(defaulted.spec.priorityClassName, "batch");
  assert.equal(defaulted.spec.preemptionPolicy, "Never");
  const unknown = await apiError(cluster.create(pod("lost", { priorityClassName: "foo" })));
  assert.equal(unknown.code, 403);
  assert.equal(unknown.message, 'pods "lost" is forbidden: no PriorityClass with name foo was found');
  const generated = await apiError(cluster.create({ ...pod(""), metadata: { generateName: "web-", namespace: "default" }, spec: { containers: [{ name: "c", image: "i" }], priorityClassName: "foo" } } as KubeObject));
  assert.equal(generated.message, 'pods "web-" is forbidden: no PriorityClass with name foo was found', "named by generateName, as upstream");
  const given = await apiError(cluster.create(pod("given", { priorityClassName: "batch", priority: 7 })));
  assert.equal(given.code, 403);
  const { priority: _p, preemptionPolicy: _pp, ...spec } = critical.spec as Obj;
  const replaced = (await cluster.update({ ...critical, spec: { ...spec, activeDeadlineSeconds: 60 } } as Obj as KubeObject)) as Obj;
  assert.equal(replaced.spec.priority, 2_000_001_000, "an update without priority keeps it");
  const templates = (await cluster.create({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d", namespace: "default" }, spec: { selector: { matchLabels: { a: "b" } }, template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "i" }] } } } } as KubeObject)) as Obj;
  assert.equal(templates.spec.template.spec.priority, undefined, "templates are not admitted: no priority on them");
});

test("pods: container requests default to their limits (extended resources are usually given as limits)", async () => {
  const cluster = new SimCluster();
  const created = (await cluster.create(pod("gpu", { containers: [{ name: "c", image: "i", resources: { limits: { "nvidia.com/gpu": "1", cpu: "1" }, requests: { cpu: "500m" } } }] }))) as Obj;
  assert.deepEqual(created.spec.containers[0].resources.requests, { "nvidia.com/gpu": "1", cpu: "500m" });
});
