import assert from "node:assert/strict";
import { test } from "node:test";
import { present, waitFor } from "../../cli/wait.ts";
import { StatusError, type Plan } from "../../protocol/index.ts";
import { FORBIDDEN_RETRY_DELAYS_MS, PlanApplier } from "./applier.ts";
import type { KubeClient } from "../kube/client.ts";

/** A client whose first `failures` Event writes answer 500; it records what it was sent. */
function flakyEvents(failures: number): { client: KubeClient; sent: { method: string; path: string; body: unknown }[] } {
  const sent: { method: string; path: string; body: unknown }[] = [];
  let left = failures;
  const client = {
    path: (type: { kind: string }, namespace: string | undefined, name?: string): Promise<string> => Promise.resolve(`/${type.kind}/${namespace ?? ""}/${name ?? ""}`),
    request: (method: string, path: string, options: { body?: unknown } = {}): Promise<unknown> => {
      if (path.startsWith("/Event/") && left > 0) {
        left -= 1;
        return Promise.reject(new StatusError(500, "InternalError", "injected"));
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
  const result = await new PlanApplier(client).apply(plan, { parent });
  assert.deepEqual(result, { ok: true, failed: 0 }, "a retry of the plan would find nothing to do and plan no Event");
  assert.deepEqual(sent.map((s) => s.path), ["/ConfigMap/default/", "/ConfigMap/default/"], "the actions after the Event were applied");
  const resent = await waitFor("the Event sent again", () => sent.find((s) => s.path.startsWith("/Event/")), present, { timeoutMs: 5_000 });
  const event = resent.body as { reason: string; involvedObject: { uid: string } };
  assert.equal(event.reason, "Recreated");
  assert.equal(event.involvedObject.uid, "u1");
});

test("a create that fails transiently still stops the plan for a retry", async () => {
  const client = {
    path: (): Promise<string> => Promise.resolve("/x"),
    request: (): Promise<unknown> => Promise.reject(new StatusError(503, "ServiceUnavailable", "down")),
  } as unknown as KubeClient;
  const plan: Plan = { actions: [{ type: "create", object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } } }] };
  const result = await new PlanApplier(client).apply(plan, { parent });
  assert.equal(result.ok, false);
});

test("a create refused for good is a FailedCreate Event; the SuccessfulCreate marked ifPreviousApplied after it is not recorded", async () => {
  const sent: { path: string; body: { reason?: string } }[] = [];
  const client = {
    path: (type: { kind: string }, namespace: string | undefined): Promise<string> => Promise.resolve(`/${type.kind}/${namespace ?? ""}/`),
    request: (_method: string, path: string, options: { body?: { metadata?: { name?: string }; reason?: string } } = {}): Promise<unknown> => {
      if (options.body?.metadata?.name === "bad") return Promise.reject(new StatusError(422, "Invalid", 'Pod "bad" is invalid'));
      sent.push({ path, body: options.body ?? {} });
      return Promise.resolve(options.body);
    },
  } as unknown as KubeClient;
  const created = (name: string): Plan["actions"] => [
    { type: "create", object: { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default" } } },
    { type: "event", target: parent, eventType: "Normal", reason: "SuccessfulCreate", message: `Created pod: ${name}`, ifPreviousApplied: true },
  ];
  const result = await new PlanApplier(client).apply({ actions: [...created("bad"), ...created("good")] }, { parent });
  assert.deepEqual(result, { ok: true, failed: 1 });
  const reasons = sent.filter((s) => s.path.startsWith("/Event/")).map((s) => s.body.reason);
  assert.deepEqual(reasons, ["FailedCreate", "SuccessfulCreate"], "one FailedCreate for the refused pod, one SuccessfulCreate for the created one");
});

/** A client that answers binds of the pods named in `outcomes` with that status, holds every request until `release`, and counts how many were in flight at once. */
function bindingClient(outcomes: Record<string, number>): { client: KubeClient; sent: string[]; peak: () => number; release: () => void } {
  const sent: string[] = [];
  let inFlight = 0;
  let peak = 0;
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const client = {
    path: (type: { kind: string }, namespace: string | undefined, name?: string, sub?: string): Promise<string> => Promise.resolve(`/${type.kind}/${namespace ?? ""}/${name ?? ""}${sub ? `/${sub}` : ""}`),
    request: async (_method: string, path: string, options: { body?: { involvedObject?: { name?: string } } } = {}): Promise<unknown> => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await gate;
      inFlight -= 1;
      const pod = path.startsWith("/Event/") ? `event:${options.body?.involvedObject?.name ?? ""}` : (path.split("/")[3] ?? "");
      const status = outcomes[pod];
      if (status !== undefined) throw new StatusError(status, "X", `injected ${status}`);
      sent.push(pod);
      return options.body;
    },
  };
  return { client: client as unknown as KubeClient, sent, peak: () => peak, release: () => open() };
}

/** A bind of pod `name` and its Scheduled Event marked ifPreviousApplied. */
function bindWithEvent(name: string): Plan["actions"] {
  const ref = { apiVersion: "v1", kind: "Pod", namespace: "default", name };
  return [
    { type: "bind", pod: { namespace: "default", name }, node: "n1" },
    { type: "event", target: ref, eventType: "Normal", reason: "Scheduled", message: `assigned ${name}`, ifPreviousApplied: true },
  ];
}

test("a plan's concurrency applies runs of binds at once, then the Events of those applied", async () => {
  const { client, sent, peak, release } = bindingClient({});
  const plan: Plan = { actions: ["a", "b", "c", "d", "e"].flatMap(bindWithEvent), concurrency: 4 };
  const applying = new PlanApplier(client).apply(plan);
  release();
  assert.deepEqual(await applying, { ok: true, failed: 0 });
  assert.equal(peak(), 4, "four binds were in flight at once");
  assert.equal(sent.length, 10);
  for (const name of ["a", "b", "c", "d", "e"]) assert.ok(sent.indexOf(name) < sent.indexOf(`event:${name}`), `${name}'s Event came after its bind`);
  assert.ok(sent.slice(0, 5).every((name) => !name.startsWith("event:")), "every bind before any Event: binds do not wait behind reports");
});

test("without concurrency a plan is applied one action at a time", async () => {
  const { client, peak, release } = bindingClient({});
  const applying = new PlanApplier(client).apply({ actions: ["a", "b", "c"].flatMap(bindWithEvent) });
  release();
  await applying;
  assert.equal(peak(), 1);
});

test("a bind answered 409 (already bound) is neither retried nor reported, and its Event is skipped", async () => {
  const { client, sent, release } = bindingClient({ b: 409 });
  const applying = new PlanApplier(client).apply({ actions: ["a", "b", "c"].flatMap(bindWithEvent), concurrency: 8 });
  release();
  assert.deepEqual(await applying, { ok: true, failed: 0 });
  assert.deepEqual([...sent].sort(), ["a", "c", "event:a", "event:c"]);
});

test("a transient failure in a run stops the plan after the run, handing back the failed unit and every later one", async () => {
  const { client, sent, release } = bindingClient({ b: 500 });
  const applying = new PlanApplier(client).apply({ actions: ["a", "b", "c", "d"].flatMap(bindWithEvent), concurrency: 2 });
  release();
  const result = await applying;
  assert.equal(result.ok, false);
  assert.ok(!result.ok);
  assert.deepEqual(result.unapplied.map((action) => (action.type === "bind" ? action.pod.name : `event:${action.type === "event" ? action.target.name : ""}`)), ["b", "event:b", "c", "event:c", "d", "event:d"]);
  assert.deepEqual([...sent].sort(), ["a", "event:a"], "the run's other unit was applied; nothing after the run was");
});

test("a create answered 429 with Retry-After stops the plan and carries the wait, so the key is not retried sooner", async () => {
  const client = {
    path: (): Promise<string> => Promise.resolve("/x"),
    request: (): Promise<unknown> => Promise.reject(new StatusError(429, "TooManyRequests", "slow down", 3_000)),
  } as unknown as KubeClient;
  const plan: Plan = { actions: [{ type: "create", object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } } }] };
  const result = await new PlanApplier(client).apply(plan, { parent });
  assert.equal(result.ok, false);
  assert.equal(result.ok ? undefined : result.retryAfterMs, 3_000);
  const atOnce = await new PlanApplier(client).apply({ ...plan, concurrency: 4 }, { parent });
  assert.equal(atOnce.ok ? undefined : atOnce.retryAfterMs, 3_000, "also from a run applied at once");
});

test("a 403 that passes within the warm-up waits (an API server loading its RBAC caches) is applied; one that stays is final after them", async () => {
  const plan: Plan = { actions: [{ type: "create", object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } } }] };
  const refusingFor = (refusals: number): { client: KubeClient; creates: () => number; events: () => number } => {
    let creates = 0;
    let events = 0;
    const client = {
      path: (type: { kind: string }): Promise<string> => Promise.resolve(`/${type.kind}`),
      request: (_method: string, path: string, options: { body?: unknown } = {}): Promise<unknown> => {
        if (path === "/Event") {
          events += 1;
          return Promise.resolve(options.body);
        }
        creates += 1;
        return creates <= refusals ? Promise.reject(new StatusError(403, "Forbidden", "configmaps is forbidden")) : Promise.resolve(options.body);
      },
    } as unknown as KubeClient;
    return { client, creates: () => creates, events: () => events };
  };
  const passing = refusingFor(2);
  assert.deepEqual(await new PlanApplier(passing.client).apply(plan, { parent }), { ok: true, failed: 0 });
  assert.equal(passing.creates(), 3);
  assert.equal(passing.events(), 0, "no FailedCreate for a refusal that passed");
  const staying = refusingFor(Infinity);
  assert.deepEqual(await new PlanApplier(staying.client).apply(plan, { parent }), { ok: true, failed: 1 });
  assert.equal(staying.creates(), 1 + FORBIDDEN_RETRY_DELAYS_MS.length, "asked again after each wait, then never");
  assert.equal(staying.events(), 1, "one FailedCreate");
});
