/** The faults through the sim's HTTP API, as the relay meets them. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import { startSim } from "../index.ts";

const configMap = (name: string): string => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a: "1" } });

test("a 429 rule answers a create with Retry-After and a TooManyRequests Status, then lets it through", async () => {
  const sim = await startSim({ controllers: false });
  try {
    sim.faults.add({ verbs: ["create"], resources: ["configmaps"], answer: { type: "status", code: 429, retryAfterSeconds: 3 }, count: 1 });
    const post = (): Promise<Response> => fetch(`${sim.url}/api/v1/namespaces/default/configmaps`, { method: "POST", headers: { "content-type": "application/json" }, body: configMap("c") });
    const refused = await post();
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("retry-after"), "3");
    const status = (await refused.json()) as { reason: string; details: { retryAfterSeconds: number } };
    assert.equal(status.reason, "TooManyRequests");
    assert.equal(status.details.retryAfterSeconds, 3);
    assert.equal(await sim.cluster.find({ apiVersion: "v1", kind: "ConfigMap" }, "default", "c"), undefined, "nothing was created");
    assert.equal((await post()).status, 201, "the body read for the rule's decision is still the body created");
    assert.deepEqual(sim.faults.journal().map((e) => [e.name, e.answer?.type]), [["c", "status"], ["c", undefined]]);
  } finally {
    await sim.stop();
  }
});

test("a delay rule serves the request after the delay", async () => {
  const sim = await startSim({ controllers: false });
  try {
    sim.faults.add({ verbs: ["get"], answer: { type: "delay", ms: 150 }, count: 1 });
    const response = await fetch(`${sim.url}/api/v1/namespaces/default`);
    assert.equal(response.status, 200);
    assert.deepEqual(sim.faults.journal().map((e) => e.answer), [{ type: "delay", ms: 150 }]);
  } finally {
    await sim.stop();
  }
});

test("a request held by a delay is not served once its client went away", async () => {
  const sim = await startSim({ controllers: false });
  try {
    sim.faults.add({ verbs: ["create"], resources: ["configmaps"], answer: { type: "delay", ms: 300 }, count: 2 });
    const post = (name: string, signal?: AbortSignal): Promise<Response> => fetch(`${sim.url}/api/v1/namespaces/default/configmaps`, { method: "POST", headers: { "content-type": "application/json" }, body: configMap(name), ...(signal ? { signal } : {}) });
    const abandoned = new AbortController();
    const first = post("c", abandoned.signal).catch(() => undefined);
    await waitFor("the first create to be held", () => sim.faults.journal().length, (n) => n === 1, { intervalMs: 5 });
    abandoned.abort();
    await first;
    // Held as long, and started later: once it is served, the first one's hold is over.
    assert.equal((await post("d")).status, 201);
    assert.equal(await sim.cluster.find({ apiVersion: "v1", kind: "ConfigMap" }, "default", "c"), undefined, "the abandoned create was not served");
  } finally {
    await sim.stop();
  }
});

test("goneNow ends an open watch with an ERROR event carrying 410; shaping sends events twice", async () => {
  const sim = await startSim({ controllers: false });
  try {
    sim.faults.shapeWatches({ duplicate: 1 });
    const response = await fetch(`${sim.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${sim.cluster.store.resourceVersion}`);
    const text = response.text();
    await sim.cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "default" } });
    await waitFor("the ADDED event written to the watch, twice (events duplicated)", () => sim.faults.shaped.duplicated, (duplicated) => duplicated >= 1);
    assert.equal(sim.faults.goneNow(), 1);
    const events = (await text).trim().split("\n").map((line) => JSON.parse(line) as { type: string; object: { code?: number } });
    assert.deepEqual(events.map((e) => e.type), ["ADDED", "ADDED", "ERROR"]);
    assert.equal(events[2]?.object.code, 410);
    assert.equal(sim.faults.shaped.duplicated, 1);
  } finally {
    await sim.stop();
  }
});

test("/sim/faults: rules added and removed over HTTP, a bad rule refused naming its field, a storm and shaping started and stopped", async () => {
  const sim = await startSim({ controllers: false });
  try {
    const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
      const response = await fetch(`${sim.url}/sim/faults${path}`, { method, ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const added = await call("POST", "/rules", { verbs: ["create"], resources: ["configmaps"], answer: { type: "status", code: 500 }, count: 1 });
    assert.equal(added.status, 201);
    const post = await fetch(`${sim.url}/api/v1/namespaces/default/configmaps`, { method: "POST", headers: { "content-type": "application/json" }, body: configMap("d") });
    assert.equal(post.status, 500);
    const state = await call("GET", "");
    assert.equal((state.body.rules as unknown[]).length, 1);
    assert.equal((state.body.journal as unknown[]).length, 1);
    assert.equal((await call("DELETE", `/rules/${String(added.body.id)}`)).status, 200);
    assert.equal((await call("DELETE", `/rules/${String(added.body.id)}`)).status, 404);
    const bad = await call("POST", "/rules", { answer: { type: "status", code: 200 } });
    assert.equal(bad.status, 400);
    assert.match(String(bad.body.message), /answer\.code/);
    assert.equal((await call("POST", "/gone", { rounds: 1, intervalMs: 10 })).status, 202);
    assert.equal((await call("PUT", "/shaping", { duplicate: 0.5 })).status, 200);
    assert.equal((await call("PUT", "/shaping", { duplicate: 2 })).status, 400);
    assert.equal((await call("DELETE", "")).status, 200);
    assert.equal((await call("GET", "/nothing")).status, 404);
    assert.equal((await call("PATCH", "")).status, 405);
  } finally {
    await sim.stop();
  }
});
