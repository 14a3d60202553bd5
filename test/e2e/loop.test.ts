/**
 * The full loop — sim cluster, Worker in workerd, relay — with the `mirror` test
 * controller: children appear, deleted children heal once, nothing is lost across a
 * relay restart or a Worker outage, and unsigned work is refused.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import { signRequest, StatusError, type KubeObject } from "../../protocol/index.ts";
import { WorkerClient } from "../../relay/deliver/worker-client.ts";
import { waitForGone, waitForObject } from "../support/cluster-waits.ts";
import { e2eStack, frontCall, type E2EStack } from "./harness.ts";

const CM = { apiVersion: "v1", kind: "ConfigMap" };
let stack: E2EStack;

before(async () => {
  stack = await e2eStack();
});
after(async () => {
  await stack.stop();
});

function parent(name: string, data: Record<string, string> = { a: "1" }): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", labels: { "edgeloop.test/parent": "true" } }, data } as KubeObject;
}

const mirrors = async (): Promise<KubeObject[]> => (await stack.cluster.list(CM, { namespace: "default", labelSelector: "edgeloop.test/mirror-of" })).items;

test("a new parent gets its child, owned by it", async () => {
  const created = await stack.cluster.create(parent("alpha"));
  const child = await waitForObject(stack.cluster, CM, "default", "alpha-mirror");
  assert.deepEqual((child as { data?: unknown }).data, { a: "1" });
  assert.equal(child.metadata.ownerReferences?.[0]?.uid, created.metadata.uid);
  assert.equal(child.metadata.ownerReferences?.[0]?.controller, true);
});

test("after a reconcile, /metrics carries the names operators chart: client-go's workqueue and REST client, controller-runtime's reconcile", async () => {
  await stack.cluster.create(parent("charted"));
  await waitForObject(stack.cluster, CM, "default", "charted-mirror");
  const text = await waitFor("the reconcile counted (controller_runtime_reconcile_total)", async () => (await fetch(`${stack.relay.opsUrl}/metrics`)).text(), (metrics) => /^controller_runtime_reconcile_total\{controller="mirror",result="success"\} [1-9]/m.test(metrics), {
    describe: (metrics) => metrics.split("\n").filter((line) => line.startsWith("controller_runtime_reconcile_total")).join("; ") || "no series",
  });
  for (const series of [
    /^workqueue_adds_total\{name="mirror"\} [1-9]/m,
    /^workqueue_depth\{name="mirror"\} \d+$/m,
    /^workqueue_retries_total\{name="mirror"\} \d+$/m,
    /^workqueue_queue_duration_seconds_count\{name="mirror"\} [1-9]/m,
    /^workqueue_work_duration_seconds_bucket\{le="1000",name="mirror"\} [1-9]/m,
    /^workqueue_unfinished_work_seconds\{name="mirror"\} [\d.e-]+$/m,
    /^workqueue_longest_running_processor_seconds\{name="mirror"\} [\d.e-]+$/m,
    /^controller_runtime_reconcile_errors_total\{controller="mirror"\} \d+$/m,
    /^controller_runtime_reconcile_time_seconds_count\{controller="mirror"\} [1-9]/m,
    // Lists and writes through the relay's client, and client-node's watch requests.
    /^rest_client_requests_total\{code="200",method="GET",host="127\.0\.0\.1:\d+"\} [1-9]/m,
    /^rest_client_requests_total\{code="201",method="POST",host="127\.0\.0\.1:\d+"\} [1-9]/m,
    /^edgeloop_reconciles_total\{controller="mirror",result="ok"\} [1-9]/m,
  ]) {
    assert.match(text, series);
  }
});

test("a deleted child is healed, once, as a new incarnation", async () => {
  await stack.cluster.create(parent("beta"));
  const first = await waitForObject(stack.cluster, CM, "default", "beta-mirror");
  await stack.cluster.delete(CM, "default", "beta-mirror");
  const healed = await waitForObject(stack.cluster, CM, "default", "beta-mirror", (o) => o.metadata.uid !== first.metadata.uid);
  assert.notEqual(healed.metadata.uid, first.metadata.uid);
  assert.equal((await mirrors()).filter((m) => m.metadata.name === "beta-mirror").length, 1);
});

test("deleting the parent takes the child with it (garbage collection by ownerReference)", async () => {
  await stack.cluster.create(parent("gamma"));
  await waitForObject(stack.cluster, CM, "default", "gamma-mirror");
  await stack.cluster.delete(CM, "default", "gamma", { propagationPolicy: "Foreground" });
  await waitForGone(stack.cluster, CM, "default", "gamma");
  await waitForGone(stack.cluster, CM, "default", "gamma-mirror");
});

test("a relay restart in the middle of a burst loses nothing", async () => {
  const names = Array.from({ length: 40 }, (_, i) => `burst-${i}`);
  const burst = Promise.all(names.slice(0, 20).map((n) => stack.cluster.create(parent(n))));
  await stack.restartRelay();
  await burst;
  await Promise.all(names.slice(20).map((n) => stack.cluster.create(parent(n))));
  await waitFor(
    "every burst parent mirrored (those not yet)",
    async () => {
      const have = new Set((await mirrors()).map((m) => m.metadata.name));
      return names.filter((n) => !have.has(`${n}-mirror`));
    },
    (missing) => missing.length === 0,
    { timeoutMs: 30_000 },
  );
});

test("a Worker that is down is retried with backoff, and the loop converges when it is back", async () => {
  await stack.worker.stop();
  await stack.cluster.create(parent("during-outage"));
  // The relay keeps failing against the stopped Worker until it returns.
  await waitFor("the relay to notice the outage (a mirror reconcile counted as an error)", async () => (await fetch(`${stack.relay.opsUrl}/metrics`)).text(), (metrics) => /edgeloop_reconciles_total\{controller="mirror",result="error"\} [1-9]/.test(metrics), {
    describe: (metrics) => metrics.split("\n").filter((line) => line.startsWith("edgeloop_reconciles_total")).join("; ") || "no series",
  });
  await stack.worker.restart();
  await waitForObject(stack.cluster, CM, "default", "during-outage-mirror", () => true, 45_000);
});

test("a request signed with another key is refused and nothing is applied", async () => {
  const impostor = new WorkerClient(stack.worker.url, "not-the-shared-secret-0000");
  await assert.rejects(impostor.manifest(), (error: unknown) => error instanceof StatusError && error.status === 401);
  await assert.rejects(
    impostor.reconcile("mirror", { controller: "mirror", key: "default/zeta", parent: parent("zeta"), children: { "ConfigMap.v1": [] }, now: new Date().toISOString() }),
    (error: unknown) => error instanceof StatusError && error.status === 401,
  );
  assert.equal(await stack.cluster.find(CM, "default", "zeta-mirror"), undefined);
});

test("a request captured from the relay and sent again is refused as a replay", async () => {
  const eta = parent("eta");
  const deleted = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "eta-mirror", namespace: "default", uid: "uid-eta-mirror" } };
  const body = JSON.stringify({ controller: "mirror", key: "default/eta", parent: { ...eta, metadata: { ...eta.metadata, uid: "uid-eta" } }, children: { "ConfigMap.v1": [] }, triggers: [{ type: "DELETED", kind: "ConfigMap.v1", object: deleted }], now: new Date().toISOString() });
  const headers = await signRequest(stack.secret, { method: "POST", target: "/v1/reconcile/mirror", body }, Date.now() / 1000);
  const send = (): Promise<Response> => fetch(`${stack.worker.url}/v1/reconcile/mirror`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body });
  assert.equal((await send()).status, 200);
  const replayed = await send();
  assert.equal(replayed.status, 401);
  assert.equal(((await replayed.json()) as { error: { code: string } }).error.code, "signature_replayed");
});

test("admission webhooks are served through the relay's TLS front, as registered by the stack", async () => {
  const stamped = await stack.cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "stamped", namespace: "default", labels: { "edgeloop.test/stamp": "yes" } } } as KubeObject);
  assert.equal(stamped.metadata.annotations?.["edgeloop.test/stamped"], "true", "the mutating webhook's patch was applied");
  await assert.rejects(
    stack.cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "denied", namespace: "default", labels: { "edgeloop.test/deny": "yes" } } } as KubeObject),
    /edgeloop.test\/deny is set/,
  );
  assert.equal(await stack.cluster.find(CM, "default", "denied"), undefined);
});

test("a controller's HTTP API is served through the front: actions are applied before the reply", async () => {
  const created = await frontCall(stack, "POST", "/v1alpha1/mirrors", { namespace: "default", name: "via-api", data: { b: "2" } });
  assert.deepEqual(created, { status: 201, body: { success: true, message: "created", data: { name: "via-api" } } });
  const object = await stack.cluster.find(CM, "default", "via-api");
  assert.equal(object?.metadata.labels?.["edgeloop.test/parent"], "true", "the create was applied before the reply");
  await waitForObject(stack.cluster, CM, "default", "via-api-mirror");

  const listed = await waitFor("the API to list via-api", () => frontCall(stack, "GET", "/v1alpha1/mirrors?namespace=default"), (answer) => (answer.body as { data: string[] }).data.includes("default/via-api"));
  assert.equal(listed.status, 200);
  const elsewhere = await frontCall(stack, "GET", "/v1alpha1/mirrors?namespace=kube-system");
  assert.deepEqual((elsewhere.body as { data: string[] }).data, [], "related objects are limited to the namespace the request names");

  const invalid = await frontCall(stack, "POST", "/v1alpha1/mirrors", { namespace: "default", name: "Not_A_Name" });
  assert.equal(invalid.status, 500, "a failed action answers with the API's onApplyError");
  assert.match((invalid.body as { message: string }).message, /^create failed: .*Not_A_Name/);
  assert.deepEqual(await frontCall(stack, "POST", "/v1alpha1/mirrors", { name: "x" }), { status: 400, body: { success: false, message: "namespace: required" } });
  assert.equal((await frontCall(stack, "PUT", "/v1alpha1/mirrors")).status, 501);
  const unknown = await frontCall(stack, "GET", "/v1alpha1/unknown");
  assert.equal(unknown.status, 404);
  assert.match(await (await fetch(`${stack.relay.opsUrl}/metrics`)).text(), /edgeloop_api_requests_total\{api="mirror-api",code="201"\} 1/);
});

test("an API's answer reaching outside the namespace the request names is refused, and nothing is created there", async () => {
  // Unauthenticated caller: the request names `default`, the body steers the create to kube-system.
  const steered = await frontCall(stack, "POST", "/v1alpha1/mirrors?namespace=default", { namespace: "kube-system", name: "steered" });
  assert.equal(steered.status, 500, "a refused action answers like a failed one");
  assert.match((steered.body as { message: string }).message, /refused: create outside namespace default/);
  assert.equal(await stack.cluster.find(CM, "kube-system", "steered"), undefined);
  assert.match(await (await fetch(`${stack.relay.opsUrl}/metrics`)).text(), /edgeloop_refused_actions_total\{controller="mirror",action="create"\} 1/);
});
