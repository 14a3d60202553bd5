import assert from "node:assert/strict";
import { test } from "node:test";
import type { Manifest } from "../../protocol/index.ts";
import { framingSurfaces, SMUGGLED_CONFIGMAP, smuggledControl } from "./framing-surfaces.ts";

const manifest = { controllers: [{ name: "nervex", apis: [{ name: "replicas", pathPrefix: "/v1alpha1/replicas" }] }] } as unknown as Manifest;
const hosts = { worker: "127.0.0.1:1", front: "127.0.0.1:2", api: "127.0.0.1:3", ops: "127.0.0.1:4", sim: "127.0.0.1:5" };
const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString("utf8");

test("one framing surface per server the stack runs, none for one it does not", () => {
  assert.deepEqual(framingSurfaces({ manifest, hosts, namespace: "chaos", coordinator: "nx-0-coordinator" }).map((s) => s.target), ["worker", "front", "api", "ops", "sim"]);
  const { front: _front, ...noFront } = hosts;
  assert.ok(!framingSurfaces({ manifest, hosts: noFront, namespace: "chaos", coordinator: "c" }).some((s) => s.target === "front"));
});

test("the relay's API ports smuggle a replicas POST of the workload's job; the control is another such POST (never the same body)", () => {
  const front = framingSurfaces({ manifest, hosts, namespace: "chaos", coordinator: "nx-0-coordinator" }).find((s) => s.target === "front");
  assert.ok(front);
  const control = text(front.control.bytes);
  assert.match(control, /^POST \/v1alpha1\/replicas\?namespace=chaos HTTP\/1\.1\r\n/);
  assert.ok(control.includes('"coordinator":"nx-0-coordinator"') && control.includes('"collectors"'));
  const smuggling = front.cases(5, 1).filter((c) => c.label.includes("smuggles"));
  assert.ok(smuggling.length > 0 && smuggling.every((c) => text(c.bytes).includes('"learners"') && !text(c.bytes).includes('"collectors"')));
  assert.equal(front.control.changes, true);
});

test("the sim's control creates another ConfigMap than the smuggled one", () => {
  const sim = framingSurfaces({ manifest, hosts, namespace: "chaos", coordinator: "c" }).find((s) => s.target === "sim");
  assert.ok(sim && text(sim.control.bytes).includes(`"${SMUGGLED_CONFIGMAP}-control"`));
  assert.ok(sim.cases(5, 1).some((c) => text(c.bytes).includes(`"name":"${SMUGGLED_CONFIGMAP}"`)));
});

test("a control worked when a 2xx came back", () => {
  assert.equal(smuggledControl([200]), true);
  assert.equal(smuggledControl([100, 201]), true);
  assert.equal(smuggledControl([400]), false);
  assert.equal(smuggledControl([]), false);
});
