/**
 * The Worker's routes in real workerd: signatures, every bad-input class, the manifest,
 * and a reconcile through a controller defined in test/fixtures/controllers.
 */
import assert from "node:assert/strict";
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
  assert.deepEqual(await response.json(), { ok: true, protocol: "v1" });
});

test("the manifest lists every controller folder, built-in and the test's own", async () => {
  const response = await signed(`${worker.url}/v1/manifest`);
  assert.equal(response.status, 200);
  const manifest = (await response.json()) as { version: string; controllers: { name: string; delivery: string }[] };
  assert.equal(manifest.version, "v1");
  assert.deepEqual(manifest.controllers.map((c) => c.name).sort(), ["federatedlearning", "jointinference", "journal", "mirror"]);
  assert.equal(manifest.controllers.find((c) => c.name === "journal")?.delivery, "events");
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
  const good = await signRequest(SECRET, body, now);
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
  assert.deepEqual(await list.json(), { status: 200, body: { success: true, message: "", data: ["default/p"] }, actions: [] });
  const create = await signed(`${worker.url}/v1/api/mirror-api`, { body: apiRequest({ method: "POST", body: JSON.stringify({ namespace: "default", name: "q" }) }) });
  const answer = (await create.json()) as { status: number; actions: { type: string; object: { metadata: { name: string } } }[]; onApplyError: { status: number } };
  assert.equal(answer.status, 201);
  assert.deepEqual(answer.actions.map((a) => [a.type, a.object.metadata.name]), [["create", "q"]]);
  assert.equal(answer.onApplyError.status, 500);
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
  const headers = await signRequest(SECRET, "", Date.now() / 1000);
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

async function sendTwice(path: string, body: unknown): Promise<[Response, Response]> {
  const headers = await signRequest(SECRET, JSON.stringify(body), Date.now() / 1000);
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
  assert.equal((await signed(`${worker.url}/v1/manifest`, { at })).status, 200, "GETs are reads and may repeat");
});
