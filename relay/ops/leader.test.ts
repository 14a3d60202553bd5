import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeClient } from "../kube/client.ts";
import { decide, LeaderElector, microTime } from "./leader.ts";
import { StatusError } from "../../protocol/index.ts";

const now = new Date("2026-11-23T10:00:00.000Z");

test("no lease: create it; ours: renew it", () => {
  assert.equal(decide(undefined, "a", now, 15), "create");
  assert.equal(decide({ holderIdentity: "a", renewTime: microTime(now), leaseDurationSeconds: 15 }, "a", now, 15), "renew");
});

test("another holder: wait while the lease is fresh, take over once it lapsed or was released", () => {
  const renewed = new Date(now.getTime() - 10_000);
  assert.equal(decide({ holderIdentity: "b", renewTime: microTime(renewed), leaseDurationSeconds: 15 }, "a", now, 15), "wait");
  assert.equal(decide({ holderIdentity: "b", renewTime: microTime(renewed), leaseDurationSeconds: 5 }, "a", now, 15), "takeover");
  assert.equal(decide({ holderIdentity: null, renewTime: microTime(now) }, "a", now, 15), "takeover");
  assert.equal(decide({ holderIdentity: "b", renewTime: "garbage" }, "a", now, 15), "takeover");
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
