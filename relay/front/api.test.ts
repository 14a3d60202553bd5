import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiResponse, ApiSpec, type ApiAnswer, type KubeObject, type Manifest } from "../../protocol/index.ts";
import { apiFor, requestNamespace, serveApi, type ApiHost } from "./api.ts";
import { FakeCache } from "../../test/support/fake-cache.ts";
import { fakeReviews } from "./testing/reviews.ts";

const spec = ApiSpec.parse({
  name: "replicas",
  pathPrefix: "/v1alpha1/replicas",
  related: [
    { apiVersion: "v1", kind: "Pod", sameNamespace: true },
    { apiVersion: "v1", kind: "Node", selector: { matchLabels: { role: "edge" } } },
  ],
  timeoutSeconds: 5,
});
const named = ApiSpec.parse({ name: "named", pathPrefix: "/v1alpha1/named", related: [{ apiVersion: "v1", kind: "Pod", namedBy: ["query.pod", "body.pod"] }] });
const manifest: Manifest = { version: "v1", controllers: [{ name: "nervex", delivery: "snapshot", related: [], watches: [], webhooks: [], apis: [spec, named], channels: [], permissions: [] }] };

const pod = (namespace: string, name: string): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { namespace, name } });
const node = (name: string, role: string): KubeObject => ({ apiVersion: "v1", kind: "Node", metadata: { name, labels: { role } } });
const quiet = (): void => undefined;

interface Recorded {
  forwarded: { name: string; request: { method: string; path: string; query: Record<string, string>; related: Record<string, KubeObject[]> } }[];
  applied: string[];
  scopes: string[];
  counted: string[];
  released: string[];
}

function host(given: ApiAnswer | Error, failOn?: string): ApiHost & { recorded: Recorded } {
  const answer = given instanceof Error ? given : ApiResponse.parse(given);
  const recorded: Recorded = { forwarded: [], applied: [], scopes: [], counted: [], released: [] };
  const pods = new FakeCache(true, { objects: [pod("a", "p1"), pod("b", "p2"), pod("b", "p3")] });
  const nodes = new FakeCache(false, { objects: [node("n1", "edge"), node("n2", "cloud")] });
  return {
    recorded,
    manifest,
    relatedCaches: (kind) => (kind.kind === "Pod" ? pods : kind.kind === "Node" ? nodes : undefined),
    forward: (name, request) => {
      recorded.forwarded.push({ name, request: request as Recorded["forwarded"][number]["request"] });
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
    applyAction: (action, api, namespace) => {
      recorded.scopes.push(`${api} ${namespace ?? "-"}`);
      const name = action.type === "create" ? (action.object.metadata.name ?? "") : "";
      if (name === failOn) return Promise.reject(new Error(`pods "${name}" is invalid`));
      recorded.applied.push(name);
      return Promise.resolve();
    },
    countApiRequest: (api, status) => recorded.counted.push(`${api} ${status}`),
    releaseClaims: (claims) => {
      recorded.released.push(...claims.map((c) => `${c.namespace ?? "-"}/${c.key}`));
      return Promise.resolve();
    },
    reviews: fakeReviews({ admin: ["*"], alice: ["a"] }),
  };
}

const create = (name: string): ApiResponse["actions"][number] => ({ type: "create", object: pod("a", name) });

test("an API serves its prefix and the paths below it, nothing else", () => {
  assert.equal(apiFor(manifest, "/v1alpha1/replicas")?.name, "replicas");
  assert.equal(apiFor(manifest, "/v1alpha1/replicas/failed")?.name, "replicas");
  assert.equal(apiFor(manifest, "/v1alpha1/replicasets"), undefined);
  assert.equal(apiFor(manifest, "/healthz"), undefined);
});

test("the namespace comes from the query, else from a JSON body", () => {
  assert.equal(requestNamespace({ namespace: "q" }, '{"namespace":"b"}'), "q");
  assert.equal(requestNamespace({}, '{"namespace":"b"}'), "b");
  assert.equal(requestNamespace({}, "{not json"), undefined);
  assert.equal(requestNamespace({}, '["namespace"]'), undefined);
  assert.equal(requestNamespace({}, ""), undefined);
});

test("a request is forwarded with its query and the related objects narrowed to it", async () => {
  const fake = host({ status: 200, body: { ok: 1 }, actions: [] });
  const reply = await serveApi(fake, spec, { method: "GET", url: "/v1alpha1/replicas?namespace=a&namespace=z&coordinator=c", body: "" }, quiet);
  assert.deepEqual(reply, { status: 200, body: { ok: 1 } });
  const forwarded = fake.recorded.forwarded[0]?.request;
  assert.deepEqual(forwarded?.query, { namespace: "a", coordinator: "c" });
  assert.equal(forwarded?.path, "/v1alpha1/replicas");
  assert.deepEqual(forwarded?.related["Pod.v1"]?.map((p) => p.metadata.name), ["p1"]);
  assert.deepEqual(forwarded?.related["Node.v1"]?.map((n) => n.metadata.name), ["n1"], "a cluster-scoped related kind is narrowed by its selector");
  assert.deepEqual(fake.recorded.counted, ["replicas 200"]);
});

test("a request naming no namespace gets no objects narrowed by namespace", async () => {
  const fake = host({ status: 200, body: null, actions: [] });
  await serveApi(fake, spec, { method: "GET", url: "/v1alpha1/replicas", body: "" }, quiet);
  assert.deepEqual(fake.recorded.forwarded[0]?.request.related, { "Pod.v1": [], "Node.v1": [node("n1", "edge")] });
});

test("namedBy reads the query and the parsed JSON body; the namespace may come from the body", async () => {
  const fake = host({ status: 200, body: null, actions: [] });
  await serveApi(fake, named, { method: "POST", url: "/v1alpha1/named?pod=p2", body: '{"namespace":"b","pod":"p3"}' }, quiet);
  await serveApi(fake, named, { method: "POST", url: "/v1alpha1/named?pod=p2", body: "not json" }, quiet);
  const [json, text] = fake.recorded.forwarded.map((f) => f.request.related["Pod.v1"]?.map((p) => `${p.metadata.namespace ?? ""}/${p.metadata.name ?? ""}`));
  assert.deepEqual(json, ["b/p2", "b/p3"]);
  assert.deepEqual(text, [], "no namespace named: a namespaced kind is not looked up");
});

test("actions are applied in order before the reply; the first failure answers onApplyError with the API's message", async () => {
  const ok = host({ status: 201, body: "made", actions: [create("x"), create("y")] });
  assert.deepEqual(await serveApi(ok, spec, { method: "POST", url: "/v1alpha1/replicas", body: "{}" }, quiet), { status: 201, body: "made" });
  assert.deepEqual(ok.recorded.applied, ["x", "y"]);

  const failing = host({ status: 201, body: "made", actions: [create("x"), create("bad"), create("y")], onApplyError: { status: 500, body: { success: false, message: "create failed" } } }, "bad");
  const reply = await serveApi(failing, spec, { method: "POST", url: "/v1alpha1/replicas", body: "{}" }, quiet);
  assert.deepEqual(reply, { status: 500, body: { success: false, message: 'create failed: pods "bad" is invalid' } });
  assert.deepEqual(failing.recorded.applied, ["x"], "nothing after the failed action is applied");

  const bare = host({ status: 201, body: "made", actions: [create("bad")] }, "bad");
  const bareReply = await serveApi(bare, spec, { method: "POST", url: "/v1alpha1/replicas", body: "{}" }, quiet);
  assert.equal(bareReply.status, 502);
});

test("each action is applied within the namespace the request names, for its API", async () => {
  const answer: ApiAnswer = { status: 201, body: "made", actions: [create("x")] };
  const byQuery = host(answer);
  await serveApi(byQuery, spec, { method: "POST", url: "/v1alpha1/replicas?namespace=a", body: JSON.stringify({ namespace: "kube-system" }) }, quiet);
  assert.deepEqual(byQuery.recorded.scopes, ["replicas a"], "the query wins over the body");
  const none = host(answer);
  await serveApi(none, spec, { method: "POST", url: "/v1alpha1/replicas", body: "{}" }, quiet);
  assert.deepEqual(none.recorded.scopes, ["replicas -"]);
});

test("a Worker that cannot answer gives 503; an unknown method 501, without forwarding", async () => {
  const down = host(new Error("worker unreachable"));
  assert.equal((await serveApi(down, spec, { method: "GET", url: "/v1alpha1/replicas", body: "" }, quiet)).status, 503);
  const fake = host({ status: 200, body: null, actions: [] });
  assert.equal((await serveApi(fake, spec, { method: "TRACE", url: "/v1alpha1/replicas", body: "" }, quiet)).status, 501);
  assert.equal(fake.recorded.forwarded.length, 0);
});

test("a path that leaves the API's prefix once normalised is 404, without forwarding", async () => {
  const fake = host({ status: 200, body: null, actions: [] });
  for (const url of ["/v1alpha1/replicas/../x", "/v1alpha1/replicas/%2e%2e/x", "/v1alpha1/replicas/.."]) {
    assert.equal((await serveApi(fake, spec, { method: "POST", url, body: "{}" }, quiet)).status, 404, url);
  }
  assert.equal(fake.recorded.forwarded.length, 0);
});

test("actions not applied hand their release tokens back, each once; applied ones keep theirs", async () => {
  const token = { namespace: "a", key: "api/replicas/f1" };
  const claimed = (name: string): ApiResponse["actions"][number] => ({ ...create(name), release: token });
  const failing = host({ status: 200, body: "made", actions: [claimed("x"), claimed("bad"), claimed("y")] }, "bad");
  assert.equal((await serveApi(failing, spec, { method: "POST", url: "/v1alpha1/replicas", body: "{}" }, quiet)).status, 502);
  assert.deepEqual(failing.recorded.released, ["a/api/replicas/f1"]);
  const ok = host({ status: 200, body: "made", actions: [claimed("x")] });
  await serveApi(ok, spec, { method: "POST", url: "/v1alpha1/replicas", body: "{}" }, quiet);
  assert.deepEqual(ok.recorded.released, []);
});

test("concurrency: a run of creates is applied at once, the next run after it; a failure in a run answers the error", async () => {
  let inFlight = 0;
  let most = 0;
  const order: string[] = [];
  const fake = host({ status: 200, body: "made", concurrency: 4, actions: [create("a"), create("b"), create("c"), { type: "delete", target: { apiVersion: "v1", kind: "Pod", namespace: "a", name: "old" } }, create("d")] });
  const concurrent: ApiHost = {
    ...fake,
    applyAction: async (action) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      order.push(action.type === "create" ? (action.object.metadata.name ?? "") : `delete ${action.type === "delete" ? action.target.name : ""}`);
      inFlight -= 1;
    },
  };
  assert.deepEqual(await serveApi(concurrent, spec, { method: "POST", url: "/v1alpha1/replicas", body: "{}" }, quiet), { status: 200, body: "made" });
  assert.equal(most, 3, "a, b and c at once; the delete and d each alone");
  assert.deepEqual(order.slice(3), ["delete old", "d"], "runs keep their order");
  const failing = host({ status: 200, body: "made", concurrency: 8, actions: [create("x"), create("bad"), create("y")], onApplyError: { status: 500, body: { message: "create failed" } } }, "bad");
  assert.deepEqual(await serveApi(failing, spec, { method: "POST", url: "/v1alpha1/replicas", body: "{}" }, quiet), { status: 500, body: { message: 'create failed: pods "bad" is invalid' } });
});

const gangs = ApiSpec.parse({ name: "gangs", pathPrefix: "/v1/gangs", readers: { group: "", resource: "pods", verb: "list", items: "items" } });
const rows = { now: "2026-01-01T00:00:00Z", items: [{ namespace: "a", group: "x" }, { namespace: "b", group: "y" }, { namespace: "a", group: "z" }] };

test("an API with readers: no token 401, a namespace the caller may not list 403 naming the field, the answer filtered to what it may list", async () => {
  const get = (url: string, authorization?: string): ReturnType<typeof serveApi> => serveApi(host({ status: 200, body: rows }), gangs, { method: "GET", url, body: "", authorization }, quiet);
  const anonymous = await get("/v1/gangs");
  assert.equal(anonymous.status, 401);
  assert.equal((anonymous.body as { error: { path: string } }).error.path, "headers.authorization");
  assert.equal((await get("/v1/gangs", "Bearer nobody")).status, 401, "a token the API server does not authenticate");
  assert.deepEqual(await get("/v1/gangs", "Bearer admin"), { status: 200, body: rows }, "may list pods everywhere: everything");
  const alice = await get("/v1/gangs", "Bearer alice");
  assert.deepEqual((alice.body as typeof rows).items.map((r) => r.group), ["x", "z"], "only namespace a's rows");
  const forbidden = await get("/v1/gangs?namespace=b", "Bearer alice");
  assert.equal(forbidden.status, 403);
  assert.deepEqual(forbidden.body, { error: { code: "forbidden", message: "alice may not list pods in namespace b", path: "query.namespace" } });
  const named = await get("/v1/gangs?namespace=a", "bearer alice");
  assert.deepEqual((named.body as typeof rows).items.map((r) => r.group), ["x", "z"], "a namespace it may list (the scheme is case-insensitive)");
});

test("an API with readers whose reviews fail answers 503 and forwards nothing", async () => {
  const failing = { ...host({ status: 200, body: rows }), reviews: { authenticate: () => Promise.reject(new Error("connection refused")), allowed: () => Promise.resolve(true) } };
  const reply = await serveApi(failing, gangs, { method: "GET", url: "/v1/gangs", body: "", authorization: "Bearer admin" }, quiet);
  assert.equal(reply.status, 503);
  assert.equal(failing.recorded.forwarded.length, 0);
});
