/**
 * Every way a plan enters the relay goes through the scope check: snapshot delivery
 * (the key's namespace), events delivery (kinds only) and the outbox drainer (the
 * entry's controller; an unknown one may do nothing).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Manifest, type Action, type KubeObject, type OutboxBatch, type Plan } from "../../protocol/index.ts";
import { OutboxDrainer } from "../deliver/outbox.ts";
import { Reconciler } from "../deliver/reconciler.ts";
import type { KubeClient } from "../kube/client.ts";
import { Metrics } from "../ops/metrics.ts";
import { eventsQueueKey, parentQueueKey } from "../queue/key.ts";
import { PlanApplier } from "./applier.ts";
import { ScopeGuard } from "./guard.ts";

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

/** The apply stage over `client`: the scope guard, then the applier. */
function planSink(client: KubeClient, metrics: Metrics): ScopeGuard {
  return new ScopeGuard({ client, metrics, log: () => undefined, applier: new PlanApplier(client) });
}

/** A reconciler whose Worker answers every delivery with `plan`. */
function reconciler(plan: Plan, client: KubeClient, metrics: Metrics): Reconciler {
  const parent = { apiVersion: "v1", kind: "ConfigMap", name: "p", namespace: "default" };
  const applier = new PlanApplier(client);
  return new Reconciler({
    manifests: { manifest },
    snapshots: { send: async () => ({ plan, parent }) },
    events: { send: async () => ({ plan, parent: undefined }) },
    plans: planSink(client, metrics),
    recorder: applier,
    claims: { releaseClaims: async () => ({ released: 0 }) },
    health: { reached: () => undefined },
    metrics,
    log: () => undefined,
  });
}

test("snapshot delivery applies only the key's namespace and declared kinds, and warns on the parent", async () => {
  const { client, sent } = cluster();
  const metrics = new Metrics();
  const plan = creates(cm("default", "ok"), cm("kube-system", "steered"), secret("default", "s"));
  assert.deepEqual(await reconciler(plan, client, metrics).process(parentQueueKey("mirror", "default/p"), []), { kind: "done" });
  // The plan is checked whole before any of it is applied.
  assert.deepEqual(sent, [
    "POST /api/v1/namespaces/default/events ActionRefused",
    "POST /api/v1/namespaces/default/events ActionRefused",
    "POST /api/v1/namespaces/default/configmaps ok",
  ]);
  assert.match(await metrics.render(), /edgeloop_refused_actions_total\{controller="mirror",action="create"\} 2/);
});

test("events delivery has no parent namespace: declared kinds anywhere, nothing else", async () => {
  const { client, sent } = cluster();
  const plan = creates(cm("kube-system", "anywhere"), secret("default", "s"));
  assert.deepEqual(await reconciler(plan, client, new Metrics()).process(eventsQueueKey("sched"), []), { kind: "done" });
  assert.deepEqual(sent, ["POST /api/v1/namespaces/kube-system/configmaps anywhere"], "no parent: no Event");
});

test("the outbox drainer checks each entry against its controller; an unknown controller's entry does nothing", async () => {
  const { client, sent } = cluster();
  const metrics = new Metrics();
  const batches: OutboxBatch[] = [
    {
      cursor: "2",
      entries: [
        { id: "1", controller: "mirror", plan: creates(cm("default", "timer"), secret("default", "s")) },
        { id: "2", controller: "ghost", plan: creates(cm("default", "ghost")) },
      ],
    } as OutboxBatch,
  ];
  // The Worker answers one batch, then holds the next poll until the drainer stops: by then the batch is applied.
  let drained: () => void = () => undefined;
  const waiting = new Promise<void>((resolve) => (drained = resolve));
  const worker = {
    outbox: async (_cursor: string, _wait: number, signal?: AbortSignal): Promise<OutboxBatch> => {
      const next = batches.shift();
      if (next) return next;
      drained();
      return new Promise<OutboxBatch>((_resolve, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    },
  };
  const drainer = new OutboxDrainer({ worker, plans: planSink(client, metrics), manifests: { manifest }, metrics, log: () => undefined, waitSeconds: 1 });
  drainer.start();
  await waiting;
  await drainer.stop();
  assert.deepEqual(sent, ["POST /api/v1/namespaces/default/configmaps timer"]);
  assert.match(await metrics.render(), /edgeloop_refused_actions_total\{controller="mirror",action="create"\} 1/);
});
