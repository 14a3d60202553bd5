import assert from "node:assert/strict";
import { test } from "node:test";
import { ControllerManifest, StatusError, type Action, type KubeObject, type Plan } from "../../protocol/index.ts";
import { Metrics } from "../ops/metrics.ts";
import { ScopeGuard, type GuardedApplier } from "./guard.ts";
import { actionAllowed, type PluralOf } from "./scope.ts";

const mirror = ControllerManifest.parse({
  name: "mirror",
  delivery: "snapshot",
  parent: { apiVersion: "v1", kind: "ConfigMap" },
  watches: [{ apiVersion: "v1", kind: "ConfigMap", resource: "configmaps", namespaced: true, mapping: { by: "self" } }],
  permissions: [
    { group: "", resource: "configmaps", access: ["read", "write"] },
    { group: "apps", resource: "deployments", access: ["read", "status"] },
    { group: "", resource: "pods/binding", access: ["create"] },
  ],
});
const plurals: Record<string, string> = { ConfigMap: "configmaps", Deployment: "deployments", Pod: "pods", Secret: "secrets" };
const pluralOf: PluralOf = (type) => plurals[type.kind];
const cm = (namespace: string | undefined, name = "x"): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...(namespace ? { namespace } : {}) } });
const ref = (kind: string, apiVersion: string, namespace: string, name = "x"): { apiVersion: string; kind: string; name: string; namespace: string } => ({ apiVersion, kind, name, namespace });
const inDefault = { namespace: "default" };

test("declared writes in the parent's namespace are allowed", () => {
  const allowed: Action[] = [
    { type: "create", object: cm("default") },
    { type: "patch", target: ref("ConfigMap", "v1", "default"), patch: {} },
    { type: "delete", target: ref("ConfigMap", "v1", "default") },
    { type: "status", target: ref("Deployment", "apps/v1", "default"), status: {} },
    { type: "bind", pod: { namespace: "default", name: "p" }, node: "n1" },
    { type: "event", target: ref("Secret", "v1", "default"), eventType: "Normal", reason: "R", message: "" },
  ];
  for (const action of allowed) assert.equal(actionAllowed(action, mirror, inDefault, pluralOf), null, action.type);
});

test("an action in another namespace than the parent's is refused, events included", () => {
  const outside: Action[] = [
    { type: "create", object: cm("kube-system") },
    { type: "patch", target: ref("ConfigMap", "v1", "kube-system"), patch: {} },
    { type: "delete", target: ref("ConfigMap", "v1", "kube-system") },
    { type: "status", target: ref("Deployment", "apps/v1", "kube-system"), status: {} },
    { type: "bind", pod: { namespace: "kube-system", name: "p" }, node: "n1" },
    { type: "event", target: ref("ConfigMap", "v1", "kube-system"), eventType: "Normal", reason: "R", message: "" },
  ];
  for (const action of outside) assert.match(actionAllowed(action, mirror, inDefault, pluralOf) ?? "", /outside namespace default/, action.type);
});

test("a cluster-scoped or namespace-less object is outside a namespaced scope", () => {
  assert.match(actionAllowed({ type: "create", object: cm(undefined) }, mirror, inDefault, pluralOf) ?? "", /cluster-scoped or no namespace/);
});

test("a kind the controller does not declare it writes is refused, in any scope", () => {
  const secret: Action = { type: "create", object: { apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "default" } } };
  assert.match(actionAllowed(secret, mirror, {}, pluralOf) ?? "", /create of secrets: controller mirror does not declare write/);
  const readOnly: Action = { type: "patch", target: ref("Deployment", "apps/v1", "default"), patch: {} };
  assert.match(actionAllowed(readOnly, mirror, {}, pluralOf) ?? "", /patch of deployments\.apps: .* does not declare write/);
});

test("status needs `status`, not `write`; bind needs `create` on pods/binding", () => {
  const status: Action = { type: "status", target: ref("ConfigMap", "v1", "default"), status: {} };
  assert.match(actionAllowed(status, mirror, {}, pluralOf) ?? "", /does not declare status/);
  const noBind = ControllerManifest.parse({ ...mirror, permissions: [{ group: "", resource: "pods", access: ["write"] }] });
  assert.match(actionAllowed({ type: "bind", pod: { namespace: "default", name: "p" }, node: "n" }, noBind, {}, pluralOf) ?? "", /pods\/binding: .* does not declare create/);
});

test("one verb declared allows that action only: a Node patched (edge autonomy) is neither created nor deleted", () => {
  const marks = ControllerManifest.parse({ ...mirror, permissions: [{ group: "", resource: "pods", access: ["read", "patch"] }, { group: "", resource: "configmaps", access: ["create", "delete"] }] });
  const pod = ref("Pod", "v1", "default");
  assert.equal(actionAllowed({ type: "patch", target: pod, patch: {} }, marks, {}, pluralOf), null);
  assert.match(actionAllowed({ type: "delete", target: pod }, marks, {}, pluralOf) ?? "", /delete of pods: controller mirror does not declare write or delete/);
  assert.match(actionAllowed({ type: "create", object: { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" } } }, marks, {}, pluralOf) ?? "", /does not declare write or create/);
  assert.equal(actionAllowed({ type: "create", object: cm("default") }, marks, {}, pluralOf), null);
  assert.equal(actionAllowed({ type: "delete", target: ref("ConfigMap", "v1", "default") }, marks, {}, pluralOf), null);
  assert.match(actionAllowed({ type: "patch", target: ref("ConfigMap", "v1", "default"), patch: {} }, marks, {}, pluralOf) ?? "", /does not declare write or patch/);
});

test("a kind whose resource is unknown is refused", () => {
  const odd: Action = { type: "delete", target: ref("Gadget", "example.com/v1", "default") };
  assert.match(actionAllowed(odd, mirror, {}, pluralOf) ?? "", /unknown resource/);
});

test("without a namespace in scope (events controllers, outbox), only kinds bound", () => {
  assert.equal(actionAllowed({ type: "create", object: cm("kube-system") }, mirror, {}, pluralOf), null);
});

const unused = (): Promise<never> => Promise.reject(new Error("not used by this test"));

/** An applier that only records the guard's Events in `events`. */
function recording(events: Action[] = []): GuardedApplier {
  return { record: (event) => Promise.resolve(void events.push(event)), apply: unused, applyAction: unused };
}

function guard(): { guard: ScopeGuard; metrics: Metrics; events: Action[]; logged: string[] } {
  const metrics = new Metrics();
  const events: Action[] = [];
  const logged: string[] = [];
  const client = { resource: (): Promise<never> => Promise.reject(new Error("no discovery")), path: unused, request: unused };
  const g = new ScopeGuard({ client, metrics, log: (_level, message) => void logged.push(message), applier: recording(events) });
  return { guard: g, metrics, events, logged };
}

test("the guard drops refused actions, counts and logs them, and warns on the parent", async () => {
  const { guard: g, metrics, events, logged } = guard();
  const plan: Plan = { actions: [{ type: "create", object: cm("default", "ok") }, { type: "create", object: cm("kube-system", "bad") }], requeueAfterSeconds: 5 };
  const parent = { apiVersion: "v1", kind: "ConfigMap", name: "p", namespace: "default" };
  const kept = await g.filter(plan, mirror, inDefault, parent);
  assert.deepEqual(kept, { actions: [plan.actions[0]], requeueAfterSeconds: 5 });
  assert.match(await metrics.render(), /edgeloop_refused_actions_total\{controller="mirror",action="create"\} 1/);
  assert.equal(logged.length, 1);
  assert.equal(events.length, 1);
  const event = events[0];
  assert.ok(event?.type === "event");
  assert.deepEqual({ target: event.target, type: event.eventType, reason: event.reason }, { target: parent, type: "Warning", reason: "ActionRefused" });
  assert.match(event.message, /kube-system/);
});

test("the guard resolves plurals from watches, and a kind discovery does not know is refused", async () => {
  const { guard: g } = guard();
  assert.equal(await g.check({ type: "create", object: cm("default") }, mirror, inDefault), null);
  assert.match((await g.check({ type: "delete", target: ref("Deployment", "apps/v1", "default") }, mirror, inDefault)) ?? "", /unknown resource/);
});

test("the guard falls back to discovery for kinds the controller does not watch", async () => {
  const metrics = new Metrics();
  const client = { resource: (): Promise<{ plural: string; namespaced: boolean }> => Promise.resolve({ plural: "deployments", namespaced: true }), path: unused, request: unused };
  const g = new ScopeGuard({ client, metrics, log: () => undefined, applier: recording() });
  assert.match((await g.check({ type: "patch", target: ref("Deployment", "apps/v1", "default"), patch: {} }, mirror, inDefault)) ?? "", /deployments\.apps: .* does not declare write/);
  assert.equal(await g.check({ type: "status", target: ref("Deployment", "apps/v1", "default"), status: {} }, mirror, inDefault), null);
});

test("a root delete becomes the delete of the root owner (pinned to its uid), and the scope is checked on that kind", async () => {
  const objects: Record<string, KubeObject> = {
    "/Pod/default/p": { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default", uid: "u-p", ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: "j", uid: "u-j", controller: true }] } },
    "/Job/default/j": { apiVersion: "batch/v1", kind: "Job", metadata: { name: "j", namespace: "default", uid: "u-j", ownerReferences: [{ apiVersion: "example.dev/v1", kind: "Sweep", name: "s", uid: "u-s" }] } },
  };
  const client = {
    resource: (type: { kind: string }): Promise<{ plural: string; namespaced: boolean }> => Promise.resolve({ plural: `${type.kind.toLowerCase()}s`, namespaced: true }),
    path: (type: { kind: string }, namespace: string | undefined, name?: string): Promise<string> => Promise.resolve(`/${type.kind}/${namespace ?? ""}/${name ?? ""}`),
    request: (_method: string, path: string): Promise<unknown> => (objects[path] ? Promise.resolve(objects[path]) : Promise.reject(new StatusError(404, "NotFound", `${path} not found`))),
  };
  const g = new ScopeGuard({ client, metrics: new Metrics(), log: () => undefined, applier: recording() });
  const gang: ControllerManifest = { ...mirror, permissions: [...mirror.permissions, { group: "batch", resource: "jobs", access: ["read", "write"] }] };
  const rootDelete: Action = { type: "delete", target: ref("Pod", "v1", "default", "p"), root: true, preconditions: { uid: "u-p" }, propagationPolicy: "Background" };
  const kept = await g.filter({ actions: [rootDelete] }, gang, inDefault, undefined);
  assert.deepEqual(kept.actions, [{ type: "delete", target: { apiVersion: "batch/v1", kind: "Job", namespace: "default", name: "j", uid: "u-j" }, preconditions: { uid: "u-j" }, propagationPolicy: "Background" }], "the Job: its owner Sweep does not exist, so the Job is the root");
  const refused = await g.filter({ actions: [rootDelete] }, mirror, inDefault, undefined);
  assert.deepEqual(refused.actions, [], "a controller that does not declare writing Jobs may not delete one");
  delete objects["/Pod/default/p"]?.metadata.ownerReferences;
  const alone = await g.filter({ actions: [rootDelete] }, gang, inDefault, undefined);
  assert.deepEqual(alone.actions, [], "no owner: the pod itself, which this controller does not declare writing");
});
