import assert from "node:assert/strict";
import { test } from "node:test";
import type { ClaimRequest, ClaimsAnswer } from "../durable/contracts.ts";
import { resolveClaims } from "./claims.ts";
import type { LedgerClient } from "./deps.ts";
import type { Decided } from "./kit/controller.ts";

/** A ledger in memory that records each call: claims granted once per key. */
function fakeLedger(replayed = false): LedgerClient & { calls: { namespace: string | undefined; keys: string[] }[] } {
  const held = new Set<string>();
  const calls: { namespace: string | undefined; keys: string[] }[] = [];
  const claimAll = (namespace: string | undefined, claims: readonly ClaimRequest[]): Promise<ClaimsAnswer> => {
    calls.push({ namespace, keys: claims.map((c) => c.key) });
    if (replayed) return Promise.resolve({ replayed: true });
    return Promise.resolve({ replayed: false, granted: claims.map((c) => !held.has(c.key) && Boolean(held.add(c.key))) });
  };
  return {
    calls,
    claimAll,
    remember: (_namespace, _key, _ttl, value) => Promise.resolve(value),
    release: () => Promise.resolve(false),
  };
}

const target = { apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "parent" };
const event = (message: string, key?: string): Decided => ({ type: "event", target, eventType: "Normal", reason: "R", message, ...(key ? { claim: { key, ttlSeconds: 5 } } : {}) });
const create = (name: string, key?: string): Decided => ({ type: "create", object: { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "ns" } }, ...(key ? { claim: { key, ttlSeconds: 5 } } : {}) });

test("every claim of a plan goes to the namespace's ledger in one call; refused actions are dropped, the others kept in order with their release tokens", async () => {
  const ledger = fakeLedger();
  await ledger.claimAll("ns", [{ key: "taken", ttlSeconds: 5 }]);
  ledger.calls.length = 0;
  const plan = await resolveClaims({ actions: [create("a", "k1"), event("a made", "k1#event"), create("b", "taken"), event("plain"), create("c")] }, "ns/parent", ledger);
  assert.deepEqual(ledger.calls, [{ namespace: "ns", keys: ["k1", "k1#event", "taken"] }]);
  assert.deepEqual(
    plan.actions.map((a) => [a.type, a.type === "create" ? a.object.metadata.name : a.type === "event" ? a.message : "", a.release?.key]),
    [
      ["create", "a", "k1"],
      ["event", "a made", "k1#event"],
      ["event", "plain", undefined],
      ["create", "c", undefined],
    ],
  );
});

test("a plan without claims calls no ledger; a replayed batch keeps no claimed action", async () => {
  const quiet = fakeLedger();
  const plan = await resolveClaims({ actions: [create("c")], requeueAfterSeconds: 3 }, "ns/parent", quiet);
  assert.equal(quiet.calls.length, 0);
  assert.equal(plan.requeueAfterSeconds, 3);
  const replayed = await resolveClaims({ actions: [create("a", "k1"), event("plain")] }, "ns/parent", fakeLedger(true));
  assert.deepEqual(replayed.actions.map((a) => a.type), ["event"]);
});
