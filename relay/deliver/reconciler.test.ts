/**
 * A claimed create answered 409 gives its claim back before the retry, so the retry's
 * reconcile is granted the claim again and re-creates at once (not after the claim's TTL).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Manifest, StatusError, type ClaimToken, type Plan } from "../../protocol/index.ts";
import { PlanApplier } from "../apply/applier.ts";
import type { PlanSink } from "../apply/guard.ts";
import type { KubeClient } from "../kube/client.ts";
import { Metrics } from "../ops/metrics.ts";
import { parentQueueKey } from "../queue/key.ts";
import { Reconciler, type ReconcilerDeps } from "./reconciler.ts";

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
        throw new StatusError(409, "Conflict", "the object has been modified");
      }
      created.push(options.body?.metadata?.name ?? "");
      return options.body;
    },
  };
  return fake as unknown as KubeClient;
}

const key = parentQueueKey("mirror", "default/p");

/** The apply stage without a guard: every action is applied by `applier`. */
function unguarded(applier: PlanApplier): PlanSink {
  return { apply: (plan, context) => applier.apply(plan, context.target), applyAction: (action, context) => applier.applyAction(action, context.target) };
}

function depsFor(worker: FakeWorker, kube: KubeClient): ReconcilerDeps {
  const applier = new PlanApplier(kube);
  return {
    manifests: { manifest },
    snapshots: { send: async (): Promise<{ plan: Plan; parent: undefined }> => ({ plan: worker.plan(), parent: undefined }) },
    events: { send: () => Promise.reject(new Error("no events controller")) },
    plans: unguarded(applier),
    recorder: applier,
    claims: { releaseClaims: async (claims: readonly ClaimToken[]) => (worker.release(claims), { released: claims.length }) },
    health: { reached: () => undefined },
    metrics: new Metrics(),
    log: () => undefined,
  };
}

test("a 409 on a claimed create releases the claim, so the retry re-creates at once", async () => {
  const worker = new FakeWorker();
  const created: string[] = [];
  const deps = depsFor(worker, client(1, created));
  const first = await new Reconciler(deps).process(key, []);
  assert.equal(first.kind, "retry");
  assert.deepEqual(worker.released, [[{ namespace: "default", key: "uid-p/Pod/uid-1" }]]);
  const second = await new Reconciler(deps).process(key, []);
  assert.deepEqual(second, { kind: "done" });
  assert.deepEqual(created, ["p-2"]);
});

test("an applied claimed create keeps its claim (nothing is released)", async () => {
  const worker = new FakeWorker();
  const created: string[] = [];
  assert.deepEqual(await new Reconciler(depsFor(worker, client(0, created))).process(key, []), { kind: "done" });
  assert.deepEqual(worker.released, []);
  assert.deepEqual(created, ["p-2"]);
});

/** A Worker that answers every snapshot with `status`; the cluster records the Events posted. */
function refusingDeps(status: number, events: { reason: string; type: string; message: string; involvedObject: { name: string } }[]): ReconcilerDeps {
  const snapshots = {
    send: async (): Promise<never> => {
      throw new StatusError(status, "too_deep", `worker answered ${status}: {"error":{"code":"too_deep","path":"parent.spec.template"}}`);
    },
  };
  const kube = {
    path: async (): Promise<string> => "/api/v1/namespaces/default/events",
    request: async (_method: string, _path: string, options: { body?: unknown } = {}): Promise<unknown> => {
      events.push(options.body as (typeof events)[number]);
      return options.body;
    },
  } as unknown as KubeClient;
  return { ...depsFor(new FakeWorker(), kube), snapshots };
}

test("a snapshot the Worker refuses for good (400) is a Warning Event on the parent naming the field, not an endless retry", async () => {
  const events: { reason: string; type: string; message: string; involvedObject: { name: string } }[] = [];
  const deps = refusingDeps(400, events);
  assert.deepEqual(await new Reconciler(deps).process(key, []), { kind: "done", terminal: true });
  assert.equal(events.length, 1);
  assert.equal(events[0]?.type, "Warning");
  assert.equal(events[0]?.reason, "ReconcileRefused");
  assert.equal(events[0]?.involvedObject.name, "p");
  assert.match(events[0]?.message ?? "", /parent\.spec\.template/);
  assert.match(await deps.metrics.render(), /edgeloop_reconciles_total\{controller="mirror",result="refused"\} 1/);
});

test("a refusal of the request itself (404 no such controller, 413, 422) is refused for good too: the protocol's one policy", async () => {
  for (const status of [404, 413, 422]) {
    const events: { reason: string; type: string; message: string; involvedObject: { name: string } }[] = [];
    assert.deepEqual(await new Reconciler(refusingDeps(status, events)).process(key, []), { kind: "done", terminal: true }, `status ${status}`);
    assert.equal(events.length, 1);
  }
});

test("a Worker error that may pass (500, 429, 401 a signature's clock, unreachable) is still retried, with no Event", async () => {
  for (const status of [500, 429, 401, 0]) {
    const events: { reason: string; type: string; message: string; involvedObject: { name: string } }[] = [];
    assert.equal((await new Reconciler(refusingDeps(status, events)).process(key, [])).kind, "retry", `status ${status}`);
    assert.deepEqual(events, []);
  }
});
