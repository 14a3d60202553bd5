import assert from "node:assert/strict";
import { test } from "node:test";
import type { Plan } from "../protocol/index.ts";
import { PlanApplier } from "./apply.ts";
import { KubeError, type KubeClient } from "./kube/client.ts";

/** A client whose first `failures` Event writes answer 500; it records what it was sent. */
function flakyEvents(failures: number): { client: KubeClient; sent: { method: string; path: string; body: unknown }[] } {
  const sent: { method: string; path: string; body: unknown }[] = [];
  let left = failures;
  const client = {
    path: (type: { kind: string }, namespace: string | undefined, name?: string): Promise<string> => Promise.resolve(`/${type.kind}/${namespace ?? ""}/${name ?? ""}`),
    request: (method: string, path: string, options: { body?: unknown } = {}): Promise<unknown> => {
      if (path.startsWith("/Event/") && left > 0) {
        left -= 1;
        return Promise.reject(new KubeError(500, "InternalError", "injected"));
      }
      sent.push({ method, path, body: options.body });
      return Promise.resolve(options.body);
    },
  };
  return { client: client as unknown as KubeClient, sent };
}

const parent = { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "p", uid: "u1" };

test("an Event whose write fails transiently does not stop the plan and is sent again until it lands", async () => {
  const { client, sent } = flakyEvents(2);
  const plan: Plan = {
    actions: [
      { type: "create", object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "p-child", namespace: "default" } } },
      { type: "event", target: parent, eventType: "Normal", reason: "Recreated", message: "recreated p-child" },
      { type: "create", object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "p-other", namespace: "default" } } },
    ],
  };
  const result = await new PlanApplier(client).apply(plan, parent);
  assert.deepEqual(result, { ok: true, failed: 0 }, "a retry of the plan would find nothing to do and plan no Event");
  assert.deepEqual(sent.map((s) => s.path), ["/ConfigMap/default/", "/ConfigMap/default/"], "the actions after the Event were applied");
  const deadline = Date.now() + 5_000;
  while (!sent.some((s) => s.path.startsWith("/Event/"))) {
    assert.ok(Date.now() < deadline, "the Event was never sent again");
    await new Promise((resolve) => setImmediate(resolve));
  }
  const event = sent.find((s) => s.path.startsWith("/Event/"))?.body as { reason: string; involvedObject: { uid: string } };
  assert.equal(event.reason, "Recreated");
  assert.equal(event.involvedObject.uid, "u1");
});

test("a create that fails transiently still stops the plan for a retry", async () => {
  const client = {
    path: (): Promise<string> => Promise.resolve("/x"),
    request: (): Promise<unknown> => Promise.reject(new KubeError(503, "ServiceUnavailable", "down")),
  } as unknown as KubeClient;
  const plan: Plan = { actions: [{ type: "create", object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } } }] };
  const result = await new PlanApplier(client).apply(plan, parent);
  assert.equal(result.ok, false);
});

test("a create refused for good is a FailedCreate Event; the SuccessfulCreate marked ifPreviousApplied after it is not recorded", async () => {
  const sent: { path: string; body: { reason?: string } }[] = [];
  const client = {
    path: (type: { kind: string }, namespace: string | undefined): Promise<string> => Promise.resolve(`/${type.kind}/${namespace ?? ""}/`),
    request: (_method: string, path: string, options: { body?: { metadata?: { name?: string }; reason?: string } } = {}): Promise<unknown> => {
      if (options.body?.metadata?.name === "bad") return Promise.reject(new KubeError(422, "Invalid", 'Pod "bad" is invalid'));
      sent.push({ path, body: options.body ?? {} });
      return Promise.resolve(options.body);
    },
  } as unknown as KubeClient;
  const created = (name: string): Plan["actions"] => [
    { type: "create", object: { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default" } } },
    { type: "event", target: parent, eventType: "Normal", reason: "SuccessfulCreate", message: `Created pod: ${name}`, ifPreviousApplied: true },
  ];
  const result = await new PlanApplier(client).apply({ actions: [...created("bad"), ...created("good")] }, parent);
  assert.deepEqual(result, { ok: true, failed: 1 });
  const reasons = sent.filter((s) => s.path.startsWith("/Event/")).map((s) => s.body.reason);
  assert.deepEqual(reasons, ["FailedCreate", "SuccessfulCreate"], "one FailedCreate for the refused pod, one SuccessfulCreate for the created one");
});
