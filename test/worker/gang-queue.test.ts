/**
 * The gang scheduler's Durable Object in real workerd: a group bound whole, its row in
 * the inspection, and its deadline fired by the object's alarm into the Worker's Outbox as
 * the delete of the group's root owner (the state machine itself is tested in Node,
 * `functions/controllers/gang/queue/`).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import { GANG_QUEUE } from "../../functions/controllers/gang/bindings.ts";
import { GANG_QUEUE_OBJECT_NAME } from "../../functions/controllers/gang/queue-name.ts";
import type { EventBatch, KubeObject, OutboxBatch } from "../../protocol/index.ts";
import { startWorker, type RunningWorker } from "../../scripts/lib/worker.ts";
import { SECRET, signed } from "./client.ts";

let worker: RunningWorker;
let persistDir: string;
before(async () => {
  persistDir = mkdtempSync(join(tmpdir(), "edgeloop-gang-"));
  worker = await startWorker({ secret: SECRET, persistDir });
});
after(async () => {
  await worker.stop();
  rmSync(persistDir, { recursive: true, force: true });
});

const node = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Node", metadata: { name, uid: `uid-${name}` }, status: { allocatable: { cpu: "4", memory: "8Gi", pods: "110" }, conditions: [{ type: "Ready", status: "True" }] } }) as KubeObject;

function pod(name: string, createdAt: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: "default",
      uid: `uid-${name}`,
      creationTimestamp: createdAt,
      labels: { "fluxnetes.group-name": "pair", "fluxnetes.group-size": "2" },
      ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: "pair-job", uid: "uid-job", controller: true }],
    },
    spec: { schedulerName: "fluxnetes", activeDeadlineSeconds: 1, containers: [{ name: "c", image: "busybox", resources: { requests: { cpu: "1" } } }] },
    status: { phase: "Pending" },
  } as KubeObject;
}

test("a group is bound whole, shows as running, and at its deadline the alarm puts the delete of its Job in the Outbox", async () => {
  const queue = await worker.durableObject(GANG_QUEUE, GANG_QUEUE_OBJECT_NAME);
  const now = new Date();
  const created = new Date(now.getTime() - 1000).toISOString();
  const objects = [node("n1"), node("n2"), pod("a", created), pod("b", created)];
  const batch: EventBatch = { controller: "gang", relist: true, partialList: false, events: objects.map((object) => ({ type: "ADDED", kind: object.kind === "Node" ? "Node.v1" : "Pod.v1", object, initial: true })), now: now.toISOString() };
  const plan = await queue.apply(batch);
  const binds = plan.actions.filter((a) => a.type === "bind").map((a) => (a.type === "bind" ? a.pod.name : ""));
  assert.deepEqual(binds.sort(), ["a", "b"]);
  const rows = await queue.groups(now.getTime());
  assert.deepEqual(rows.map((r) => [r.namespace, r.group, r.state, r.present, r.size]), [["default", "pair", "running", 2, 2]]);
  assert.ok(rows[0]?.deadline, "the declared deadline is shown");

  const deleted = await waitFor(
    "the deadline's root delete in the Outbox (the gang actions in it)",
    async () => {
      const response = await signed(`${worker.url}/v1/outbox?cursor=0&wait=0`);
      const outbox = (await response.json()) as OutboxBatch;
      return outbox.entries.filter((e) => e.controller === "gang").flatMap((e) => e.plan.actions);
    },
    (actions) => actions.some((a) => a.type === "delete"),
    { timeoutMs: 15_000 },
  );
  const root = deleted.find((a) => a.type === "delete");
  assert.ok(root?.type === "delete");
  assert.equal(root.root, true);
  assert.deepEqual(root.target, { apiVersion: "batch/v1", kind: "Job", namespace: "default", name: "pair-job", uid: "uid-job" });
  assert.equal(deleted.filter((a) => a.type === "delete").length, 1, "one delete for the Job both pods belong to");
});

/** Pod `name` of group `lost` (two pods of 1 cpu), bound to `nodeName` when given. */
function lostMember(name: string, created: string, nodeName?: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", uid: `uid-lost-${name}`, creationTimestamp: created, labels: { "fluxnetes.group-name": "lost", "fluxnetes.group-size": "2" } },
    spec: { schedulerName: "fluxnetes", ...(nodeName === undefined ? {} : { nodeName }), containers: [{ name: "c", image: "busybox", resources: { requests: { cpu: "1" } } }] },
    status: { phase: nodeName === undefined ? "Pending" : "Running" },
  } as KubeObject;
}

test("binds the API server lost (pods seen bound, then unbound in a relist) are warned about and sent again to the nodes the group holds", async () => {
  const queue = await worker.durableObject(GANG_QUEUE, GANG_QUEUE_OBJECT_NAME);
  const now = new Date();
  const created = new Date(now.getTime() - 1000).toISOString();
  const at = (ms: number): string => new Date(now.getTime() + ms).toISOString();
  const nodes = [node("n1"), node("n2")];
  const batch = (type: "ADDED" | "MODIFIED", objects: KubeObject[], ms: number): EventBatch => ({ controller: "gang", relist: type === "ADDED", partialList: false, events: objects.map((object) => ({ type, kind: object.kind === "Node" ? "Node.v1" : "Pod.v1", object, initial: type === "ADDED" })), now: at(ms) });
  const placed = new Map((await queue.apply(batch("ADDED", [...nodes, lostMember("x", created), lostMember("y", created)], 0))).actions.flatMap((a) => (a.type === "bind" ? [[a.pod.name, a.node] as const] : [])));
  assert.deepEqual([...placed.keys()].sort(), ["x", "y"]);
  const x = lostMember("x", created, placed.get("x"));
  await queue.apply(batch("MODIFIED", [x, lostMember("y", created, placed.get("y"))], 100));
  // The API server comes back without y's bind: the relist shows it unbound.
  const plan = await queue.apply(batch("ADDED", [...nodes, x, lostMember("y", created)], 200));
  const lost = plan.actions.filter((a) => a.type === "event" && a.reason === "BindLost");
  assert.deepEqual(lost.map((a) => (a.type === "event" ? [a.eventType, a.target.name] : [])), [["Warning", "y"]]);
  assert.deepEqual(plan.actions.flatMap((a) => (a.type === "bind" ? [`${a.pod.name}→${a.node}`] : [])), [`y→${placed.get("y") ?? ""}`]);
});
