/**
 * A claimed create answered 409 gives its claim back before the retry, so the retry's
 * reconcile is granted the claim again and re-creates at once (not after the claim's TTL).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Manifest, type ClaimToken, type Plan } from "../../protocol/index.ts";
import { PlanApplier } from "../apply/applier.ts";
import { KubeError, type KubeClient } from "../kube/client.ts";
import { Metrics } from "../ops/metrics.ts";
import type { ScopeGuard } from "../apply/guard.ts";
import type { EventsDelivery } from "./events.ts";
import { processKey, type ProcessDeps } from "./reconciler.ts";
import { queueKey } from "../queue/key.ts";
import { WorkerError } from "./worker-client.ts";
import type { SnapshotDelivery } from "./snapshots.ts";

const manifest = Manifest.parse({
  version: "v1",
  controllers: [
    {
      name: "mirror",
      delivery: "snapshot",
      parent: { apiVersion: "v1", kind: "ConfigMap" },
      watches: [{ apiVersion: "v1", kind: "ConfigMap", resource: "configmaps", namespaced: true, mapping: { by: "self" } }],
    },
  ],
});

const replacement = { apiVersion: "v1", kind: "Pod", metadata: { name: "p-2", namespace: "default" } };

/** The Worker's side, faked: one ledger claim guards the replacement, as `functions/claims.ts` does. */
class FakeWorker {
  readonly held = new Set<string>();
  readonly released: ClaimToken[][] = [];

  plan(): Plan {
    const key = "uid-p/Pod/uid-1";
    if (this.held.has(key)) return { actions: [], requeueAfterSeconds: 6 };
    this.held.add(key);
    return { actions: [{ type: "create", object: replacement, release: { namespace: "default", key } }] };
  }

  release(claims: readonly ClaimToken[]): void {
    this.released.push([...claims]);
    for (const claim of claims) this.held.delete(claim.key);
  }
}

/** A cluster that answers the first `conflicts` creates with 409. */
function client(conflicts: number, created: string[]): KubeClient {
  let left = conflicts;
  const fake = {
    path: async (): Promise<string> => "/api/v1/namespaces/default/pods",
    request: async (method: string, _path: string, options: { body?: { metadata?: { name?: string } } } = {}): Promise<unknown> => {
      assert.equal(method, "POST");
      if (left > 0) {
        left -= 1;
        throw new KubeError(409, "Conflict", "the object has been modified");
      }
      created.push(options.body?.metadata?.name ?? "");
      return options.body;
    },
  };
  return fake as unknown as KubeClient;
}

function depsFor(worker: FakeWorker, kube: KubeClient): ProcessDeps {
  const snapshots = {
    send: async (): Promise<{ plan: Plan; parent: undefined }> => ({ plan: worker.plan(), parent: undefined }),
    releaseClaims: async (claims: readonly ClaimToken[]): Promise<void> => worker.release(claims),
  };
  return {
    manifest: () => manifest,
    snapshots: snapshots as unknown as SnapshotDelivery,
    events: {} as EventsDelivery,
    applier: new PlanApplier(kube),
    guard: { filter: async (plan: Plan): Promise<Plan> => plan } as unknown as ScopeGuard,
    metrics: new Metrics(),
    log: () => undefined,
    workerReached: () => undefined,
  };
}

test("a 409 on a claimed create releases the claim, so the retry re-creates at once", async () => {
  const worker = new FakeWorker();
  const created: string[] = [];
  const deps = depsFor(worker, client(1, created));
  const first = await processKey(deps, queueKey("mirror", "default/p"), []);
  assert.equal(first.kind, "retry");
  assert.deepEqual(worker.released, [[{ namespace: "default", key: "uid-p/Pod/uid-1" }]]);
  const second = await processKey(deps, queueKey("mirror", "default/p"), []);
  assert.deepEqual(second, { kind: "done" });
  assert.deepEqual(created, ["p-2"]);
});

test("an applied claimed create keeps its claim (nothing is released)", async () => {
  const worker = new FakeWorker();
  const created: string[] = [];
  assert.deepEqual(await processKey(depsFor(worker, client(0, created)), queueKey("mirror", "default/p"), []), { kind: "done" });
  assert.deepEqual(worker.released, []);
  assert.deepEqual(created, ["p-2"]);
});

/** A Worker that answers every snapshot with `status`; the cluster records the Events posted. */
function refusingDeps(status: number, events: { reason: string; type: string; message: string; involvedObject: { name: string } }[]): ProcessDeps {
  const snapshots = {
    send: async (): Promise<never> => {
      throw new WorkerError(status, `worker answered ${status}: {"error":{"code":"too_deep","path":"parent.spec.template"}}`);
    },
  };
  const kube = {
    path: async (): Promise<string> => "/api/v1/namespaces/default/events",
    request: async (_method: string, _path: string, options: { body?: unknown } = {}): Promise<unknown> => {
      events.push(options.body as (typeof events)[number]);
      return options.body;
    },
  } as unknown as KubeClient;
  return { ...depsFor(new FakeWorker(), kube), snapshots: snapshots as unknown as SnapshotDelivery };
}

test("a snapshot the Worker refuses for good (400) is a Warning Event on the parent naming the field, not an endless retry", async () => {
  const events: { reason: string; type: string; message: string; involvedObject: { name: string } }[] = [];
  const deps = refusingDeps(400, events);
  assert.deepEqual(await processKey(deps, queueKey("mirror", "default/p"), []), { kind: "done", terminal: true });
  assert.equal(events.length, 1);
  assert.equal(events[0]?.type, "Warning");
  assert.equal(events[0]?.reason, "ReconcileRefused");
  assert.equal(events[0]?.involvedObject.name, "p");
  assert.match(events[0]?.message ?? "", /parent\.spec\.template/);
  assert.match(await deps.metrics.render(), /edgeloop_reconciles_total\{controller="mirror",result="refused"\} 1/);
});

test("a Worker error that may pass (500, 429, unreachable) is still retried, with no Event", async () => {
  for (const status of [500, 429, 0]) {
    const events: { reason: string; type: string; message: string; involvedObject: { name: string } }[] = [];
    assert.equal((await processKey(refusingDeps(status, events), queueKey("mirror", "default/p"), [])).kind, "retry", `status ${status}`);
    assert.deepEqual(events, []);
  }
});
