import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { SimCluster } from "../api/sim-cluster.ts";
import { ApiError } from "../contract.ts";
import { dropUnknownFields, goFormat, parseFieldValidation } from "./unknown-fields.ts";
import { apiError } from "../../test/support/api-error.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const POD = { apiVersion: "v1", kind: "Pod" };

function pod(spec: Obj = {}, metadata: Obj = {}): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default", ...metadata }, spec: { containers: [{ name: "c", image: "busybox" }], ...spec } } as KubeObject;
}


const WIDGETS = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.dev" },
  spec: {
    group: "example.dev",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: { type: "object", properties: { size: { type: "integer" }, labels: { type: "object", additionalProperties: { type: "object", properties: { v: { type: "string" } } } }, free: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } },
            },
          },
        },
      },
    ],
  },
} as unknown as KubeObject;

test("built-in kinds: every field their schema does not declare is dropped and named by its path", () => {
  const cluster = new SimCluster();
  const type = cluster.resourceOf(POD);
  const decoded = dropUnknownFields(type, pod({ nodeNmae: "n1", containers: [{ name: "c", imagee: "x", resources: { limits: { cpu: "1" } } }] }, { lables: { a: "b" }, labels: { a: "b" } }), "v1");
  assert.deepEqual(decoded.unknown, ["metadata.lables", "spec.containers[0].imagee", "spec.nodeNmae"]);
  const spec = (decoded.object as Obj).spec;
  assert.equal(spec.nodeNmae, undefined);
  assert.deepEqual(spec.containers, [{ name: "c", resources: { limits: { cpu: "1" } } }], "maps keep every key");
  assert.deepEqual(decoded.object.metadata.labels, { a: "b" });
  const cm = dropUnknownFields(cluster.resourceOf({ apiVersion: "v1", kind: "ConfigMap" }), { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { k: "v" }, status: {} } as KubeObject, "v1");
  assert.deepEqual(cm.unknown, ["status"], "a ConfigMap has no status");
});

test("custom resources: the CRD's structural schema, metadata as ObjectMeta, preserved subtrees kept", async () => {
  const cluster = new SimCluster();
  await cluster.create(WIDGETS);
  const type = cluster.resourceOf({ apiVersion: "example.dev/v1", kind: "Widget" });
  const widget = { apiVersion: "example.dev/v1", kind: "Widget", metadata: { name: "w", lables: {} }, spec: { size: 1, colour: "red", labels: { a: { v: "1", x: "2" } }, free: { anything: { goes: true } } } } as unknown as KubeObject;
  const decoded = dropUnknownFields(type, widget, "example.dev/v1");
  assert.deepEqual(decoded.unknown, ["spec.colour", "spec.labels[a].x", "metadata.lables"]);
  assert.deepEqual((decoded.object as Obj).spec.free, { anything: { goes: true } });
});

test("fieldValidation: Strict refuses with a 400, Warn (the default) warns, Ignore drops silently", async () => {
  const warnings: string[] = [];
  const cluster = new SimCluster({ onWarning: (m) => warnings.push(`in-process: ${m}`) });
  const strict = await apiError(cluster.create(pod({ nodeNmae: "n1" }), { fieldValidation: "Strict" }));
  assert.equal(strict.code, 400);
  assert.equal(strict.reason, "BadRequest");
  assert.equal(strict.message, 'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.nodeNmae"');
  const request: string[] = [];
  const created = await cluster.create(pod({ nodeNmae: "n1", restartPolicyy: "Never" }), { fieldValidation: "Warn", warn: (m) => request.push(m) });
  assert.deepEqual(request, ['unknown field "spec.nodeNmae"', 'unknown field "spec.restartPolicyy"']);
  assert.equal((created as Obj).spec.nodeNmae, undefined);
  await cluster.create({ ...pod({ x: 1 }), metadata: { name: "q", namespace: "default" } } as KubeObject, { fieldValidation: "Ignore", warn: (m) => request.push(m) });
  assert.equal(request.length, 2, "Ignore says nothing");
  await cluster.create({ ...pod({ y: 1 }), metadata: { name: "r", namespace: "default" } } as KubeObject);
  assert.deepEqual(warnings, ['in-process: unknown field "spec.y"'], "in-process writes warn to onWarning");
  const update = await apiError(cluster.update({ ...created, spec: { ...(created as Obj).spec, bogus: true } } as KubeObject, { fieldValidation: "Strict" }));
  assert.equal(update.code, 400);
  assert.match(update.message, /strict decoding error: unknown field "spec\.bogus"$/);
});

test("patches report only the unknown fields they bring in; Strict is a 422 on the patch, server-side apply a 400", async () => {
  const cluster = new SimCluster();
  await cluster.create(pod());
  const merge = await apiError(cluster.patch(POD, "default", "p", { spec: { nodeNmae: "n1" } }, "merge", { fieldValidation: "Strict" }));
  assert.equal(merge.code, 422);
  assert.match(merge.message, /^ "" is invalid: patch: Invalid value: ".*": strict decoding error: unknown field "spec\.nodeNmae"$/);
  assert.deepEqual((merge.details?.causes as Obj[])[0]?.field, "patch");
  const strategic = await apiError(cluster.patch(POD, "default", "p", { metadata: { labels: { a: "1" } }, spec: { nodeNmae: "n1" } }, "strategic", { fieldValidation: "Strict" }));
  assert.equal(strategic.message, ' "" is invalid: patch: Invalid value: "map[metadata:map[labels:map[a:1]] spec:map[nodeNmae:n1]]": strict decoding error: unknown field "spec.nodeNmae"');
  const apply = await apiError(cluster.patch(POD, "default", "p", { apiVersion: "v1", kind: "Pod", spec: { nodeNmae: "n1" } }, "apply"));
  assert.equal(apply.code, 400);
  assert.equal(apply.message, "failed to create typed patch object (default/p; /v1, Kind=Pod): .spec.nodeNmae: field not declared in schema");
  const warned: string[] = [];
  await cluster.patch(POD, "default", "p", { metadata: { labels: { a: "1" } } }, "merge", { fieldValidation: "Strict" });
  await cluster.patch(POD, "default", "p", { spec: { nodeNmae: "n1" } }, "merge", { warn: (m) => warned.push(m) });
  assert.deepEqual(warned, ['unknown field "spec.nodeNmae"']);
});

test("the fieldValidation parameter: absent means Warn, an unknown value is refused", () => {
  assert.equal(parseFieldValidation(null, "Create"), "Warn");
  assert.equal(parseFieldValidation("Strict", "Patch"), "Strict");
  assert.throws(() => parseFieldValidation("Loud", "Create"), (e: unknown) => e instanceof ApiError && e.code === 422 && /supported values: "", "Ignore", "Strict", "Warn"/.test(e.message));
});

test("Go's %+v of decoded JSON, as a strict patch error shows the patch", () => {
  assert.equal(goFormat({ b: [1, "x", null], a: { c: true } }), "map[a:map[c:true] b:[1 x <nil>]]");
  assert.equal(goFormat(1.5), "1.5");
  assert.equal(goFormat(1e-7), "1e-07");
});
