/**
 * The Worker's routes in real workerd: signatures, every bad-input class, the manifest,
 * and a reconcile through a controller defined in test/fixtures/controllers.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { signRequest } from "../../protocol/index.ts";
import { startWorker, type RunningWorker } from "../../scripts/lib/worker.ts";
import { SECRET, signed } from "./client.ts";

let worker: RunningWorker;
before(async () => {
  worker = await startWorker({ secret: SECRET, extraControllerDirs: [join(import.meta.dirname, "../fixtures/controllers")] });
});
after(async () => {
  await worker.stop();
});

const parent = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "p", namespace: "default", uid: "uid-p", labels: { "edgeloop.test/parent": "true" } },
  data: { a: "1" },
};

function snapshot(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { controller: "mirror", key: "default/p", parent, children: { "ConfigMap.v1": [] }, now: new Date().toISOString(), ...overrides };
}

async function errorOf(response: Response): Promise<{ status: number; code: string; path: string }> {
  const body = (await response.json()) as { error?: { code: string; path: string; message: string } };
  assert.ok(body.error, `expected an error body, got ${response.status} ${JSON.stringify(body)}`);
  assert.equal(typeof body.error.message, "string");
  return { status: response.status, code: body.error.code, path: body.error.path };
}

test("GET /healthz needs no signature", async () => {
  const response = await fetch(`${worker.url}/healthz`);
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { ok: true, protocol: "v2" });
});

test("the manifest lists every controller folder, built-in and the test's own", async () => {
  const response = await signed(`${worker.url}/v1/manifest`);
  assert.equal(response.status, 200);
  const manifest = (await response.json()) as { version: string; controllers: { name: string; delivery: string }[] };
  assert.equal(manifest.version, "v1");
  assert.deepEqual(manifest.controllers.map((c) => c.name).sort(), ["autonomy", "echo", "federatedlearning", "gang", "jointinference", "journal", "mirror", "nervexjob", "sedna-edge"]);
  assert.equal(manifest.controllers.find((c) => c.name === "journal")?.delivery, "events");
  assert.equal(manifest.controllers.find((c) => c.name === "gang")?.delivery, "events");
});

test("a signed snapshot returns the plan", async () => {
  const response = await signed(`${worker.url}/v1/reconcile/mirror`, { body: snapshot() });
  assert.equal(response.status, 200);
  const plan = (await response.json()) as { actions: { type: string; object: { metadata: { name: string } } }[] };
  assert.deepEqual(plan.actions.map((a) => [a.type, a.object.metadata.name]), [["create", "p-mirror"]]);
});

test("signatures: missing, malformed, tampered, wrong key, stale and future are refused with 401", async () => {
  const url = `${worker.url}/v1/reconcile/mirror`;
  const body = JSON.stringify(snapshot());
  const now = Date.now() / 1000;
  const good = await signRequest(SECRET, { method: "POST", target: "/v1/reconcile/mirror", body }, now);
  const cases: [string, Promise<Response>, string][] = [
    ["missing", fetch(url, { method: "POST", body }), "signature_missing"],
    ["malformed", fetch(url, { method: "POST", body, headers: { ...good, "x-edgeloop-signature": "md5=abc" } }), "signature_malformed"],
    ["tampered", fetch(url, { method: "POST", body: body.replace('"a":"1"', '"a":"2"'), headers: good }), "signature_mismatch"],
    ["wrong key", signed(url, { body, secret: "another-secret-0123456" }), "signature_mismatch"],
    // 305 s, not 301: timestamps are whole seconds, and the two clocks round differently.
    ["stale", signed(url, { body, at: now - 305 }), "signature_skew"],
    ["future", signed(url, { body, at: now + 305 }), "signature_skew"],
    ["manifest unsigned", fetch(`${worker.url}/v1/manifest`), "signature_missing"],
    ["outbox unsigned", fetch(`${worker.url}/v1/outbox`), "signature_missing"],
  ];
  for (const [name, request, code] of cases) {
    const error = await errorOf(await request);
    assert.equal(error.status, 401, name);
    assert.equal(error.code, code, name);
  }
});

function apiRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: "r1", method: "GET", path: "/v1alpha1/mirrors", query: { namespace: "default" }, related: { "ConfigMap.v1": [parent] }, now: new Date().toISOString(), ...overrides };
}

test("a forwarded API request is answered with the reply and the actions to apply first", async () => {
  const list = await signed(`${worker.url}/v1/api/mirror-api`, { body: apiRequest() });
  assert.equal(list.status, 200);
  assert.deepEqual(await list.json(), { status: 200, body: { success: true, message: "", data: ["default/p"] }, actions: [], concurrency: 1 });
  const create = await signed(`${worker.url}/v1/api/mirror-api`, { body: apiRequest({ method: "POST", body: JSON.stringify({ namespace: "default", name: "q" }) }) });
  const answer = (await create.json()) as { status: number; actions: { type: string; object: { metadata: { name: string } } }[]; onApplyError: { status: number } };
  assert.equal(answer.status, 201);
  assert.deepEqual(answer.actions.map((a) => [a.type, a.object.metadata.name]), [["create", "q"]]);
  assert.equal(answer.onApplyError.status, 500);
});

test("an API may answer from durable state through its context (here: the claims a namespace's ledger holds)", async () => {
  const ask = async (): Promise<unknown> => ((await (await signed(`${worker.url}/v1/api/mirror-api`, { body: apiRequest({ id: `ledger-${Math.random()}`, path: "/v1alpha1/mirrors/ledger", query: { namespace: "ledger-api" } }) })).json()) as { body: { data: unknown } }).body.data;
  assert.deepEqual(await ask(), { claims: 0 });
  await signed(`${worker.url}/v1/api/mirror-api`, { body: apiRequest({ id: "ledger-post", method: "POST", query: {}, body: JSON.stringify({ namespace: "ledger-api", name: "held" }) }) });
  assert.deepEqual(await ask(), { claims: 1 }, "the retry window's remembered reply is held there");
});

test("a retried POST (same body, new request id) within the API's window gets the first reply and no actions, until released", async () => {
  const post = (id: string, body: string): Promise<Response> => signed(`${worker.url}/v1/api/mirror-api`, { body: apiRequest({ id, method: "POST", query: {}, body }) });
  type Answer = { status: number; body: unknown; actions: { release?: { namespace?: string; key: string } }[] };
  const first = (await (await post("retry-1", '{"namespace":"default","name":"retried"}')).json()) as Answer;
  assert.equal(first.actions.length, 1);
  const token = first.actions[0]?.release;
  assert.equal(token?.namespace, "default");
  const again = (await (await post("retry-2", '{ "name": "retried", "namespace": "default" }')).json()) as Answer;
  assert.deepEqual(again, { status: first.status, body: first.body, actions: [], concurrency: 1 }, "same JSON, other spacing and key order: the first reply, nothing to apply");
  const other = (await (await post("retry-3", '{"namespace":"default","name":"other"}')).json()) as Answer;
  assert.equal(other.actions.length, 1, "another body is another request");
  await signed(`${worker.url}/v1/claims/release`, { body: { claims: [token], now: new Date().toISOString() } });
  const afterRelease = (await (await post("retry-4", '{"namespace":"default","name":"retried"}')).json()) as Answer;
  assert.equal(afterRelease.actions.length, 1, "a reply whose actions were not applied is forgotten: the retry is decided afresh");
});

test("bad input: malformed JSON, schema violations naming the field, unknown names, oversized bodies", async () => {
  const base = worker.url;
  const cases: [string, Promise<Response>, number, string, string][] = [
    ["bad json", signed(`${base}/v1/reconcile/mirror`, { body: "{not json" }), 400, "malformed_json", ""],
    ["bad key", signed(`${base}/v1/reconcile/mirror`, { body: snapshot({ key: "Not A Key" }) }), 400, "invalid", "key"],
    ["bad now", signed(`${base}/v1/reconcile/mirror`, { body: snapshot({ now: "yesterday" }) }), 400, "invalid", "now"],
    ["child without kind", signed(`${base}/v1/reconcile/mirror`, { body: snapshot({ children: { "ConfigMap.v1": [{ apiVersion: "v1", metadata: {} }] } }) }), 400, "invalid", "children.ConfigMap.v1.0.kind"],
    ["declared kind missing", signed(`${base}/v1/reconcile/mirror`, { body: snapshot({ children: {} }) }), 400, "invalid", "children.ConfigMap.v1"],
    ["unknown controller", signed(`${base}/v1/reconcile/nope`, { body: snapshot({ controller: "nope" }) }), 404, "unknown_controller", "controller"],
    ["events to a snapshot controller", signed(`${base}/v1/events/mirror`, { body: { controller: "mirror", events: [], now: new Date().toISOString() } }), 400, "wrong_delivery", "controller"],
    ["bad event batch", signed(`${base}/v1/events/journal`, { body: { controller: "journal", events: [{ type: "TOUCHED" }], now: new Date().toISOString() } }), 400, "invalid", "events.0.type"],
    ["unknown webhook", signed(`${base}/v1/admission/nope`, { body: {} }), 404, "unknown_webhook", "webhook"],
    ["unknown API", signed(`${base}/v1/api/nope`, { body: apiRequest() }), 404, "unknown_api", "api"],
    ["API request without method", signed(`${base}/v1/api/mirror-api`, { body: apiRequest({ method: undefined }) }), 400, "invalid", "method"],
    ["API path outside its prefix", signed(`${base}/v1/api/mirror-api`, { body: apiRequest({ path: "/v1alpha1/other" }) }), 400, "invalid", "path"],
    ["bad cursor", signed(`${base}/v1/outbox?cursor=abc`), 400, "invalid", "query.cursor"],
    ["wait too long", signed(`${base}/v1/outbox?wait=3600`), 400, "invalid", "query.wait"],
    ["unknown route", signed(`${base}/v2/anything`), 404, "not_found", "path"],
  ];
  for (const [name, request, status, code, path] of cases) {
    const error = await errorOf(await request);
    assert.deepEqual(error, { status, code, path }, name);
  }
});

/** `leaf` wrapped in `depth` arrays. */
function nested(depth: number, leaf: unknown = "x"): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i += 1) value = [value];
  return value;
}

/** A FederatedLearningJob snapshot whose training pod template holds `extra` in its container. */
function federatedSnapshot(extra: unknown, name = "fl"): Record<string, unknown> {
  const template = { spec: { containers: [{ name: "train", image: "train:1", extra }] } };
  const job = {
    apiVersion: "sedna.io/v1alpha1",
    kind: "FederatedLearningJob",
    metadata: { name, namespace: "default", uid: `uid-${name}` },
    spec: { aggregationWorker: { model: { name: "m" }, template }, trainingWorkers: [{ dataset: { name: "d" }, template }] },
  };
  const related = { "Model.sedna.io/v1alpha1": [], "Dataset.sedna.io/v1alpha1": [] };
  return { controller: "federatedlearning", key: `default/${name}`, parent: job, children: { "Pod.v1": [], "Service.v1": [] }, related, now: new Date().toISOString() };
}

test("an array nested 3,000 deep in a job's pod template is a 400 naming where, not a 500", async () => {
  const error = await errorOf(await signed(`${worker.url}/v1/reconcile/federatedlearning`, { body: federatedSnapshot(nested(3000), "fl-deep") }));
  assert.equal(error.status, 400);
  assert.equal(error.code, "too_deep");
  // The body is 1 deep, the container 9 (parent.spec.trainingWorkers.0.template.spec.containers.0), `extra` 10: the 55th array inside it is the 65th level.
  assert.equal(error.path, `parent.spec.trainingWorkers.0.template.spec.containers.0.extra${".0".repeat(55)}`);
});

test("data nested right up to the depth bound is reconciled (hashing included), not refused", async () => {
  const response = await signed(`${worker.url}/v1/reconcile/federatedlearning`, { body: federatedSnapshot(nested(55), "fl-edge") });
  assert.equal(response.status, 200, JSON.stringify(await response.clone().json()));
});

test("names, namespaces and labels an API server would refuse are a 400 naming the field", async () => {
  const base = `${worker.url}/v1/reconcile/mirror`;
  const withMeta = (meta: Record<string, unknown>): Record<string, unknown> => snapshot({ parent: { ...parent, metadata: { ...parent.metadata, ...meta } } });
  const child = (name: string): Record<string, unknown> => snapshot({ children: { "ConfigMap.v1": [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" } }] } });
  const cases: [string, Record<string, unknown>, string][] = [
    ["NUL in a name", withMeta({ name: "p\u0000x" }), "parent.metadata.name"],
    ["lone surrogate in a child's name", child("c\ud800"), "children.ConfigMap.v1.0.metadata.name"],
    ["slash in a name", withMeta({ name: "a/b" }), "parent.metadata.name"],
    ["namespace not a DNS label", withMeta({ namespace: "Default" }), "parent.metadata.namespace"],
    ["label value with NUL", withMeta({ labels: { app: "a\u0000" } }), "parent.metadata.labels.app"],
    ["label value over 63", withMeta({ labels: { app: "a".repeat(64) } }), "parent.metadata.labels.app"],
    ["label key with a space", withMeta({ labels: { "bad key": "v" } }), "parent.metadata.labels.bad key"],
  ];
  for (const [name, body, path] of cases) {
    const error = await errorOf(await signed(base, { body }));
    assert.deepEqual(error, { status: 400, code: "invalid", path }, name);
  }
  const fine = withMeta({ labels: { "example.com/app": "a.b_c-d", empty: "" } });
  assert.equal((await signed(base, { body: fine })).status, 200, "qualified keys and empty values are labels");
});

/**
 * Declares a body of `length` bytes and sends none of it, resolving on the response: a
 * server that answers 413 from the declared length alone never waits for the bytes.
 */
function declareHugeBody(url: string, headers: Record<string, string>, length: number): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: "POST", headers: { ...headers, "content-length": String(length) } }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) as unknown });
      });
    });
    request.on("error", reject);
    request.flushHeaders();
  });
}

test("a body declared over 8 MiB is refused with 413 before it is read", async () => {
  const headers = await signRequest(SECRET, { method: "POST", target: "/v1/reconcile/mirror", body: "" }, Date.now() / 1000);
  const { status, json } = await declareHugeBody(`${worker.url}/v1/reconcile/mirror`, headers, 9 * 1024 * 1024);
  assert.equal(status, 413);
  assert.equal((json as { error: { code: string } }).error.code, "too_large");
});

test("a claimed action is returned once per claim: the same deletion sent again (signed anew) heals once", async () => {
  const deletedChild = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "q-mirror", namespace: "default", uid: "uid-child-1" } };
  const body = snapshot({
    key: "default/q",
    parent: { ...parent, metadata: { ...parent.metadata, name: "q", uid: "uid-q" } },
    triggers: [{ type: "DELETED", kind: "ConfigMap.v1", object: deletedChild }],
  });
  const now = Date.now() / 1000;
  const first = (await (await signed(`${worker.url}/v1/reconcile/mirror`, { body, at: now })).json()) as { actions: unknown[] };
  const again = (await (await signed(`${worker.url}/v1/reconcile/mirror`, { body, at: now - 2 })).json()) as { actions: unknown[] };
  assert.equal(first.actions.length, 1);
  assert.equal(again.actions.length, 0);
});

test("a claim released by the relay (its create got a 409) is granted again to the next reconcile", async () => {
  const deletedChild = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "u-mirror", namespace: "default", uid: "uid-child-u" } };
  const body = snapshot({
    key: "default/u",
    parent: { ...parent, metadata: { ...parent.metadata, name: "u", uid: "uid-u" } },
    triggers: [{ type: "DELETED", kind: "ConfigMap.v1", object: deletedChild }],
  });
  type Claimed = { actions: { type: string; release?: { namespace?: string; key: string } }[] };
  const first = (await (await signed(`${worker.url}/v1/reconcile/mirror`, { body })).json()) as Claimed;
  const token = first.actions[0]?.release;
  assert.ok(token, `the claimed create carries its release token: ${JSON.stringify(first)}`);
  assert.equal(token.namespace, "default");
  const held = (await (await signed(`${worker.url}/v1/reconcile/mirror`, { body })).json()) as Claimed;
  assert.equal(held.actions.length, 0, "the claim holds while it is not released");
  const release = await signed(`${worker.url}/v1/claims/release`, { body: { claims: [token], now: new Date().toISOString() } });
  assert.equal(release.status, 200);
  assert.deepEqual(await release.json(), { released: 1 });
  const again = (await (await signed(`${worker.url}/v1/reconcile/mirror`, { body })).json()) as Claimed;
  assert.deepEqual(again.actions.map((a) => a.type), ["create"]);
  assert.deepEqual(await errorOf(await signed(`${worker.url}/v1/claims/release`, { body: { claims: [], now: new Date().toISOString() } })), { status: 400, code: "invalid", path: "claims" });
});

test("a replayed claim release is refused", async () => {
  const [first, replayed] = await sendTwice("/v1/claims/release", { claims: [{ namespace: "default", key: "never-held" }], now: new Date().toISOString() });
  assert.equal(first.status, 200);
  assert.deepEqual(await first.json(), { released: 0 });
  assert.equal((await errorOf(replayed)).code, "signature_replayed");
});

async function sendTwice(path: string, body: unknown): Promise<[Response, Response]> {
  const headers = await signRequest(SECRET, { method: "POST", target: path, body: JSON.stringify(body) }, Date.now() / 1000);
  const send = (): Promise<Response> => fetch(`${worker.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return [await send(), await send()];
}

test("a signed request that would change Worker state is refused when received again (replay)", async () => {
  const deleted = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "r-mirror", namespace: "default", uid: "uid-child-r" } };
  const healing = snapshot({ key: "default/r", parent: { ...parent, metadata: { ...parent.metadata, name: "r", uid: "uid-r" } }, triggers: [{ type: "DELETED", kind: "ConfigMap.v1", object: deleted }] });
  const [first, replayed] = await sendTwice("/v1/reconcile/mirror", healing);
  assert.equal(first.status, 200);
  assert.deepEqual(await errorOf(replayed), { status: 401, code: "signature_replayed", path: "x-edgeloop-signature" });
  const [batch, batchReplayed] = await sendTwice("/v1/events/journal", { controller: "journal", events: [], now: new Date().toISOString() });
  assert.equal(batch.status, 200);
  assert.equal((await errorOf(batchReplayed)).code, "signature_replayed");
  // A replayed request that changes nothing is answered again: the answer goes back to its sender.
  const [plain, plainAgain] = await sendTwice("/v1/reconcile/mirror", snapshot({ key: "default/s", parent: { ...parent, metadata: { ...parent.metadata, name: "s", uid: "uid-s" } } }));
  assert.deepEqual(await plainAgain.json(), await plain.json());
  const at = Math.floor(Date.now() / 1000);
  assert.equal((await signed(`${worker.url}/v1/manifest`, { at })).status, 200);
  assert.equal((await signed(`${worker.url}/v1/manifest`, { at })).status, 200, "the manifest is a read and may repeat");
});

/** Sends `headers` (a signature made for some other request) with `method` to `path`. */
function sendWith(path: string, headers: Record<string, string>, method = "GET", body?: string): Promise<Response> {
  return fetch(`${worker.url}${path}`, { method, headers: { "content-type": "application/json", ...headers }, ...(body === undefined ? {} : { body }) });
}

/** Headers signed for `method` `target` with `body`, now. */
function signFor(method: string, target: string, body = ""): Promise<Record<string, string>> {
  return signRequest(SECRET, { method, target, body }, Date.now() / 1000);
}

test("a signature is good only for its method, path and query: reused elsewhere or tampered it is refused", async () => {
  const manifest = await signFor("GET", "/v1/manifest");
  assert.deepEqual(await errorOf(await sendWith("/v1/outbox?cursor=999999999999", manifest)), { status: 401, code: "signature_mismatch", path: "x-edgeloop-signature" });
  const outbox = await signFor("GET", "/v1/outbox?cursor=0&wait=0");
  assert.equal((await errorOf(await sendWith("/v1/outbox?cursor=999999999999&wait=0", outbox))).code, "signature_mismatch", "tampered query");
  assert.equal((await errorOf(await sendWith("/v1/outbox?cursor=0&wait=0&x=1", outbox))).code, "signature_mismatch", "query added to");
  const body = JSON.stringify({ controller: "journal", events: [], now: new Date().toISOString() });
  const events = await signFor("POST", "/v1/events/journal", body);
  assert.equal((await errorOf(await sendWith("/v1/events/mirror", events, "POST", body))).code, "signature_mismatch", "another path");
  assert.equal((await errorOf(await sendWith("/v1/events/journal", events, "PUT", body))).status, 404, "another method reaches no route");
  assert.equal((await errorOf(await sendWith("/v1/events/journal", events, "POST", body.replace("[]", "[ ]")))).code, "signature_mismatch", "tampered body");
  assert.equal((await sendWith("/v1/events/journal", events, "POST", body)).status, 200, "the request it was made for");
});

test("an outbox read is accepted once: sent again it is refused as a replay", async () => {
  const headers = await signFor("GET", "/v1/outbox?cursor=0&wait=0");
  assert.equal((await sendWith("/v1/outbox?cursor=0&wait=0", headers)).status, 200);
  assert.deepEqual(await errorOf(await sendWith("/v1/outbox?cursor=0&wait=0", headers)), { status: 401, code: "signature_replayed", path: "x-edgeloop-signature" });
});

test("one spelling of a signature: upper or mixed case is malformed, so a captured request is not replayed in another case", async () => {
  const body = JSON.stringify({ controller: "journal", events: [], now: new Date().toISOString() });
  const headers = await signFor("POST", "/v1/events/journal", body);
  const hex = headers["x-edgeloop-signature"]!.slice("sha256=".length);
  assert.equal((await sendWith("/v1/events/journal", headers, "POST", body)).status, 200);
  const mixed = hex.replace(/[a-f]/g, (c, i: number) => (i % 2 ? c.toUpperCase() : c));
  for (const spelling of [hex.toUpperCase(), mixed, `${hex}0`, hex.slice(1)]) {
    const again = await sendWith("/v1/events/journal", { ...headers, "x-edgeloop-signature": `sha256=${spelling}` }, "POST", body);
    assert.deepEqual(await errorOf(again), { status: 401, code: "signature_malformed", path: "x-edgeloop-signature" }, spelling);
  }
  assert.equal((await errorOf(await sendWith("/v1/events/journal", headers, "POST", body))).code, "signature_replayed");
});

test("a v1 signature (over timestamp and body only) is refused", async () => {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const v1 = (body: string): Record<string, string> => ({
    "x-edgeloop-timestamp": timestamp,
    "x-edgeloop-signature": `sha256=${createHmac("sha256", SECRET).update(`${timestamp}.${body}`).digest("hex")}`,
  });
  assert.equal((await errorOf(await sendWith("/v1/manifest", v1("")))).code, "signature_mismatch");
  const body = JSON.stringify(snapshot());
  assert.equal((await errorOf(await sendWith("/v1/reconcile/mirror", v1(body), "POST", body))).code, "signature_mismatch");
});

test("a bad signature header is refused before the body is read, even with 9 MiB declared", async () => {
  const good = await signFor("POST", "/v1/reconcile/mirror");
  const url = `${worker.url}/v1/reconcile/mirror`;
  const cases: [string, Record<string, string>, string][] = [
    ["missing", {}, "signature_missing"],
    ["malformed", { ...good, "x-edgeloop-signature": "sha256=abc" }, "signature_malformed"],
    ["stale", { ...good, "x-edgeloop-timestamp": String(Math.floor(Date.now() / 1000) - 400) }, "signature_skew"],
  ];
  for (const [name, headers, code] of cases) {
    // declareHugeBody sends none of the 9 MiB: an answer at all means nothing was waited for.
    const { status, json } = await declareHugeBody(url, headers, 9 * 1024 * 1024);
    assert.equal(status, 401, name);
    assert.equal((json as { error: { code: string } }).error.code, code, name);
  }
});
