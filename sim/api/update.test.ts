import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { apiError } from "../../test/support/api-error.ts";
import { CONFIG_MAP } from "./kinds/config.ts";
import { NAMESPACE } from "./kinds/namespaces.ts";
import { POD } from "./kinds/pods.ts";
import { updateDraft } from "./update.ts";

const stored = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default", uid: "u1", creationTimestamp: "2026-01-01T00:00:00Z", generation: 2, resourceVersion: "7" },
  spec: { nodeName: "n" },
  status: { phase: "Running" },
} as KubeObject;

test("a write of the main resource keeps the stored identity, lifecycle, generation and (with a status subresource) status", () => {
  const incoming = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", uid: "forged", generation: 9, labels: { a: "b" } }, spec: { nodeName: "m" }, status: { phase: "Failed" } } as KubeObject;
  assert.deepEqual(updateDraft(POD, POD.resource, stored, incoming, ""), {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "default", uid: "u1", creationTimestamp: "2026-01-01T00:00:00Z", generation: 2, labels: { a: "b" } },
    spec: { nodeName: "m" },
    status: { phase: "Running" },
  });
});

test("a status write changes the status only", () => {
  const incoming = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { nodeName: "m" }, status: { phase: "Succeeded" } } as KubeObject;
  assert.deepEqual(updateDraft(POD, POD.resource, stored, incoming, "status"), { ...stored, status: { phase: "Succeeded" } });
});

test("a terminating object takes no new finalizer (422, reported twice as upstream)", async () => {
  const terminating = { ...stored, metadata: { ...stored.metadata, deletionTimestamp: "2026-01-01T00:01:00Z", finalizers: ["a.io/x"] } };
  const incoming = { ...terminating, metadata: { ...terminating.metadata, finalizers: ["a.io/x", "b.io/y"] } };
  const error = await apiError((async () => updateDraft(POD, POD.resource, terminating, incoming, ""))());
  assert.equal(error.code, 422);
  assert.equal((error.details?.causes as unknown[]).length, 2);
});

test("finalize writes a namespace's spec.finalizers only; other kinds serve no finalize", async () => {
  const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" }, spec: { finalizers: ["kubernetes"] }, status: { phase: "Terminating" } } as KubeObject;
  const incoming = { ...ns, metadata: { name: "team", labels: { x: "y" } }, spec: { finalizers: [] } } as KubeObject;
  assert.deepEqual(updateDraft(NAMESPACE, NAMESPACE.resource, ns, incoming, "finalize"), { ...ns, spec: { finalizers: [] } });
  const main = updateDraft(NAMESPACE, NAMESPACE.resource, ns, incoming, "") as KubeObject & { spec: unknown };
  assert.deepEqual(main.spec, { finalizers: ["kubernetes"] }, "an update keeps spec.finalizers");
  const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } } as KubeObject;
  assert.equal((await apiError((async () => updateDraft(CONFIG_MAP, CONFIG_MAP.resource, cm, cm, "finalize"))())).code, 404);
});
