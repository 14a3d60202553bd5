import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeClient } from "../kube/client.ts";
import { decide, LeaderElector, microTime, observe, type LeaseState } from "./leader.ts";
import { StatusError } from "../../protocol/index.ts";

const now = new Date("2026-11-23T10:00:00.000Z");

const lease = (holderIdentity: string | null, renewTime: string, leaseDurationSeconds?: number): LeaseState => ({ holderIdentity, renewTime, ...(leaseDurationSeconds === undefined ? {} : { leaseDurationSeconds }) });

test("no lease: create it; ours: renew it", () => {
  const seen = observe(undefined, undefined, 0);
  assert.equal(decide(undefined, "a", seen, 0, 15), "create");
  assert.equal(decide(lease("a", microTime(now), 15), "a", seen, 0, 15), "renew");
});

test("another holder: wait while its record changes within the duration, take over once it did not or was released", () => {
  const first = lease("b", microTime(now), 15);
  const seen = observe(undefined, first, 1_000);
  assert.equal(decide(first, "a", seen, 16_000, 15), "wait");
  assert.equal(decide(first, "a", seen, 16_001, 15), "takeover");
  const renewed = lease("b", microTime(new Date(now.getTime() + 10_000)), 15);
  const later = observe(seen, renewed, 12_000);
  assert.equal(decide(renewed, "a", later, 16_001, 15), "wait", "renewed meanwhile: the duration counts from when the change was seen");
  assert.equal(observe(later, renewed, 14_000), later, "an unchanged record keeps its first sighting");
  assert.equal(decide(lease(null, microTime(now)), "a", seen, 1_000, 15), "takeover");
});

test("a lease renewed by a live holder is not taken over whatever the wall clock says (issue 28, finding 4)", () => {
  // The holder's renewTime lies two minutes in this replica's past (a clock stepped forward here, or skew):
  // the lease is renewed every 2 s, so it is alive.
  const stale = new Date(now.getTime() - 120_000);
  let seen = observe(undefined, lease("b", microTime(stale), 15), 0);
  for (let at = 2_000; at <= 30_000; at += 2_000) {
    const renewed = lease("b", microTime(new Date(stale.getTime() + at)), 15);
    seen = observe(seen, renewed, at);
    assert.equal(decide(renewed, "a", seen, at, 15), "wait", `at ${at} ms`);
  }
});

test("MicroTime has six fractional digits", () => {
  assert.equal(microTime(now), "2026-11-23T10:00:00.000000Z");
});

test("leader_election_master_status: 0 once the elector is built, 1 while leading, 0 after it stops", async () => {
  let lease: unknown = undefined;
  const client = {
    path: async (): Promise<string> => "/apis/coordination.k8s.io/v1/namespaces/default/leases/edgeloop-relay",
    request: async (method: string, _path: string, options: { body?: unknown } = {}): Promise<unknown> => {
      if (method === "GET") {
        if (lease === undefined) throw new StatusError(404, "NotFound", "no lease");
        return lease;
      }
      lease = options.body;
      return lease;
    },
  } as unknown as KubeClient;
  const told: string[] = [];
  const metrics = { leaderOn: (name: string) => void told.push(`on ${name}`), leaderOff: (name: string) => void told.push(`off ${name}`) };
  const elector = new LeaderElector(client, { namespace: "default", name: "edgeloop-relay", identity: "a", leaseDurationSeconds: 15, retrySeconds: 60 }, () => undefined, metrics);
  assert.deepEqual(told, ["off edgeloop-relay"]);
  await elector.campaign(() => undefined);
  assert.deepEqual(told, ["off edgeloop-relay", "on edgeloop-relay"]);
  await elector.stop();
  assert.deepEqual(told, ["off edgeloop-relay", "on edgeloop-relay", "off edgeloop-relay"]);
});
