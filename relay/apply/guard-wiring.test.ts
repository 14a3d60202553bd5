/**
 * Every way a plan enters the relay goes through the scope check: snapshot dispatch
 * (the key's namespace), events dispatch (kinds only) and the outbox drainer (the
 * entry's controller; an unknown one may do nothing).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Manifest, type Action, type KubeObject, type OutboxBatch, type Plan } from "../../protocol/index.ts";
import { PlanApplier } from "./applier.ts";
import type { KubeClient } from "../kube/client.ts";
import { Metrics } from "../ops/metrics.ts";
import { OutboxDrainer } from "../deliver/outbox.ts";
import { ScopeGuard } from "./guard.ts";
import type { WorkerClient } from "../deliver/worker-client.ts";
import type { EventsDelivery } from "../deliver/events.ts";
import { EVENTS_KEY, queueKey } from "../queue/key.ts";
import { processKey, type ProcessDeps } from "../deliver/reconciler.ts";
import type { SnapshotDelivery } from "../deliver/snapshots.ts";

const cmWatch = { apiVersion: "v1", kind: "ConfigMap", resource: "configmaps", namespaced: true, mapping: { by: "self" } };
const manifest = Manifest.parse({
  version: "v1",
  controllers: [
    { name: "mirror", delivery: "snapshot", parent: { apiVersion: "v1", kind: "ConfigMap" }, watches: [cmWatch], permissions: [{ group: "", resource: "configmaps", access: ["read", "write"] }] },
    { name: "sched", delivery: "events", watches: [cmWatch], permissions: [{ group: "", resource: "configmaps", access: ["read", "write"] }] },
  ],
});

const cm = (namespace: string, name: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace } });
const secret = (namespace: string, name: string): KubeObject => ({ apiVersion: "v1", kind: "Secret", metadata: { name, namespace } });
const creates = (...objects: KubeObject[]): Plan => ({ actions: objects.map((object): Action => ({ type: "create", object })) });

/** A cluster that records every request as `METHOD path name`. */
function cluster(): { client: KubeClient; sent: string[] } {
  const sent: string[] = [];
  const plurals: Record<string, string> = { ConfigMap: "configmaps", Secret: "secrets", Event: "events" };
  const client = {
    resource: async (type: { kind: string }): Promise<{ plural: string; namespaced: boolean }> => ({ plural: plurals[type.kind] ?? "unknown", namespaced: true }),
    path: async (type: { kind: string }, namespace: string | undefined): Promise<string> => `/api/v1/namespaces/${namespace ?? ""}/${plurals[type.kind] ?? ""}`,
    request: async (method: string, path: string, options: { body?: KubeObject & { reason?: string } } = {}): Promise<unknown> => {
      sent.push(`${method} ${path} ${options.body?.reason ?? options.body?.metadata.name ?? ""}`);
      return options.body;
    },
  };
  return { client: client as unknown as KubeClient, sent };
}

function depsFor(plan: Plan, client: KubeClient, metrics: Metrics): ProcessDeps {
  const applier = new PlanApplier(client);
  const parent = { apiVersion: "v1", kind: "ConfigMap", name: "p", namespace: "default" };
  return {
    manifest: () => manifest,
    snapshots: { send: async () => ({ plan, parent }) } as unknown as SnapshotDelivery,
    events: { send: async () => ({ plan, parent: undefined }) } as unknown as EventsDelivery,
    applier,
    guard: new ScopeGuard({ client, metrics, log: () => undefined, recordEvent: (event) => applier.applyOne(event) }),
    metrics,
    log: () => undefined,
    workerReached: () => undefined,
  };
}

test("snapshot dispatch applies only the key's namespace and declared kinds, and warns on the parent", async () => {
  const { client, sent } = cluster();
  const metrics = new Metrics();
  const plan = creates(cm("default", "ok"), cm("kube-system", "steered"), secret("default", "s"));
  assert.deepEqual(await processKey(depsFor(plan, client, metrics), queueKey("mirror", "default/p"), []), { kind: "done" });
  // The plan is checked whole before any of it is applied.
  assert.deepEqual(sent, [
    "POST /api/v1/namespaces/default/events ActionRefused",
    "POST /api/v1/namespaces/default/events ActionRefused",
    "POST /api/v1/namespaces/default/configmaps ok",
  ]);
  assert.match(await metrics.render(), /edgeloop_refused_actions_total\{controller="mirror",action="create"\} 2/);
});

test("events dispatch has no parent namespace: declared kinds anywhere, nothing else", async () => {
  const { client, sent } = cluster();
  const plan = creates(cm("kube-system", "anywhere"), secret("default", "s"));
  assert.deepEqual(await processKey(depsFor(plan, client, new Metrics()), queueKey("sched", EVENTS_KEY), []), { kind: "done" });
  assert.deepEqual(sent, ["POST /api/v1/namespaces/kube-system/configmaps anywhere"], "no parent: no Event");
});

test("the outbox drainer checks each entry against its controller; an unknown controller's entry does nothing", async () => {
  const { client, sent } = cluster();
  const metrics = new Metrics();
  const applier = new PlanApplier(client);
  const batches: OutboxBatch[] = [
    {
      cursor: "2",
      entries: [
        { id: "1", controller: "mirror", plan: creates(cm("default", "timer"), secret("default", "s")) },
        { id: "2", controller: "ghost", plan: creates(cm("default", "ghost")) },
      ],
    } as OutboxBatch,
  ];
  const running: { drainer?: OutboxDrainer } = {};
  const worker = {
    outbox: async (): Promise<OutboxBatch> => {
      const next = batches.shift();
      if (next) return next;
      void running.drainer?.stop();
      return new Promise<OutboxBatch>(() => undefined);
    },
  } as unknown as WorkerClient;
  const drainer = new OutboxDrainer({ worker, applier, guard: new ScopeGuard({ client, metrics, log: () => undefined, recordEvent: (e) => applier.applyOne(e) }), manifest: () => manifest, metrics, log: () => undefined, waitSeconds: 1 });
  running.drainer = drainer;
  drainer.start();
  await drainer.stop().then(() => new Promise((resolve) => setTimeout(resolve, 50)));
  assert.deepEqual(sent, ["POST /api/v1/namespaces/default/configmaps timer"]);
  assert.match(await metrics.render(), /edgeloop_refused_actions_total\{controller="mirror",action="create"\} 1/);
});
