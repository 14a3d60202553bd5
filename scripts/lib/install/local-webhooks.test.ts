import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject, WebhookSpec } from "../../../protocol/index.ts";
import type { KubeClient } from "../../../relay/kube/client.ts";
import { localWebhookConfigurations, onLoopback, removeLocalWebhooks } from "./local-webhooks.ts";

const hooks: WebhookSpec[] = [
  { name: "job-defaults", type: "mutating", failurePolicy: "Fail", timeoutSeconds: 5, related: [], decidedAt: "worker", rules: [{ operations: ["CREATE"], apiGroups: ["example.dev"], apiVersions: ["v1"], resources: ["jobs"] }] },
  { name: "job-validate", type: "validating", failurePolicy: "Fail", timeoutSeconds: 5, related: [], decidedAt: "worker", rules: [{ operations: ["CREATE"], apiGroups: ["example.dev"], apiVersions: ["v1"], resources: ["jobs"] }] },
];

test("the front on 127.0.0.1 is reachable only from an API server on this machine's loopback", () => {
  for (const server of ["https://127.0.0.1:6443", "https://localhost:6443", "https://[::1]:6443", "https://127.0.1.1"]) assert.equal(onLoopback(server), true, server);
  for (const server of ["https://10.0.0.1:6443", "https://api.example.com", "https://127.example.com"]) assert.equal(onLoopback(server), false, server);
});

test("the configurations install-relay renders, calling the front by url with its CA, never for the relay's namespace", () => {
  const [mutating, validating] = localWebhookConfigurations(hooks, "https://127.0.0.1:4443", "CA", "edgeloop") as unknown as { kind: string; webhooks: { clientConfig: Record<string, unknown>; namespaceSelector: unknown }[] }[];
  assert.equal(mutating?.kind, "MutatingWebhookConfiguration");
  assert.equal(validating?.kind, "ValidatingWebhookConfiguration");
  assert.deepEqual(mutating?.webhooks[0]?.clientConfig, { url: "https://127.0.0.1:4443/admission/job-defaults", caBundle: Buffer.from("CA").toString("base64") });
  assert.deepEqual(validating?.webhooks[0]?.namespaceSelector, { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["edgeloop"] }] });
});

test("a stop removes the configurations still calling its front, and leaves those another front registered since", async () => {
  const objects = localWebhookConfigurations(hooks, "https://127.0.0.1:4443", "CA");
  const stored = new Map<string, KubeObject>(objects.map((o) => [o.metadata.name ?? "", { ...o, metadata: { ...o.metadata, uid: `uid-${o.metadata.name ?? ""}` } }]));
  // Another front took the validating configuration over.
  const validating = stored.get("edgeloop-validating") as KubeObject & { webhooks: { clientConfig: { url: string } }[] };
  stored.set("edgeloop-validating", { ...validating, webhooks: validating.webhooks.map((w) => ({ ...w, clientConfig: { ...w.clientConfig, url: "https://127.0.0.1:9999/admission/job-validate" } })) });
  const deleted: { path: string; body: unknown }[] = [];
  const admin = {
    path: async (_type: unknown, _namespace: unknown, name?: string) => `/x/${name ?? ""}`,
    request: async (method: string, path: string, options?: { body?: unknown }) => {
      const name = path.split("/").pop() ?? "";
      if (method === "GET") return stored.get(name);
      deleted.push({ path, body: options?.body });
      return {};
    },
  } as unknown as KubeClient;
  await removeLocalWebhooks(admin, objects, "https://127.0.0.1:4443");
  assert.deepEqual(deleted, [{ path: "/x/edgeloop-mutating", body: { kind: "DeleteOptions", apiVersion: "v1", preconditions: { uid: "uid-edgeloop-mutating" } } }]);
});
