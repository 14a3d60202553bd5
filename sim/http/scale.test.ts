import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { patchAt, toCustomScale, toScale } from "./scale.ts";

const meta = { name: "w", namespace: "ns", uid: "u", resourceVersion: "7", creationTimestamp: "2026-01-01T00:00:00Z" };

test("a custom resource's Scale reads the CRD's paths; a missing count is 0, zero spec replicas left out", () => {
  const widget = { apiVersion: "x.dev/v1", kind: "Widget", metadata: meta, spec: { size: 3 }, status: { size: 2, selector: "app=w" } } as unknown as KubeObject;
  assert.deepEqual(toCustomScale(widget, { spec: ".spec.size", status: ".status.size", selector: ".status.selector" }), {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: meta,
    spec: { replicas: 3 },
    status: { replicas: 2, selector: "app=w" },
  });
  const empty = { apiVersion: "x.dev/v1", kind: "Widget", metadata: meta, spec: {} } as unknown as KubeObject;
  assert.deepEqual(toCustomScale(empty, { spec: ".spec.size", status: ".status.size" }).spec, {});
  assert.deepEqual(toCustomScale(empty, { spec: ".spec.size", status: ".status.size" }).status, { replicas: 0 });
});

test("patchAt nests the value at a JSON path", () => {
  assert.deepEqual(patchAt(".spec.size", 5), { spec: { size: 5 } });
  assert.deepEqual(patchAt(".spec.a.b", 1), { spec: { a: { b: 1 } } });
});

test("a Deployment's Scale leaves zero spec replicas out (ScaleSpec.replicas is omitempty)", () => {
  const deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: meta, spec: { replicas: 0, selector: { matchLabels: { app: "w" } } } } as unknown as KubeObject;
  assert.deepEqual(toScale(deployment).spec, {});
});
