/**
 * Issue 35, item 3: no cluster write waits on the link to the Worker. With the link as
 * deployed (`--link`) taken `down`, an unreachable host, the writes the cluster itself
 * makes and the ones a platform engineer makes on edge nodes go through at once, with
 * their webhooks' decisions unchanged (the relay decides them, ADR 0034): cordon, label,
 * annotate, a refused bad duration, a pod created bound to an edge node with its
 * tolerations set, an Endpoints write. Only edgeloop's own resources (NerveXJob) fail
 * closed, saying why. The outage is visible (`edgeloop_worker_up`, one log line each
 * way) and ends when the link returns. Runs on the sim and on the real control plane.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import type { Level } from "../../cli/log.ts";
import { NO_SHAPE } from "../../scripts/lib/link/spec.ts";
import { KUBECTL_SKIP, kubectlFor, type Kubectl } from "../sim/kubectl.ts";
import { waitForObject } from "../support/cluster-waits.ts";
import { createNamespaces, e2eStack, type E2EStack } from "./harness.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested objects

const NS = "outage";
const DURATION = "node.openyurt.io/autonomy-duration";
const NERVEX_FIXTURES = join(import.meta.dirname, "../../functions/controllers/nervex/fixtures");
/**
 * A write held on the link would take at least the webhook's timeout (3 s for the autonomy
 * webhooks) before kube-apiserver gave up: each write must be answered well before.
 */
const HELD_MS = 2_500;
const skip = KUBECTL_SKIP;

let stack: E2EStack;
let kubectl: Kubectl;
const logged: { level: Level; message: string }[] = [];

before(async () => {
  if (skip) return;
  stack = await e2eStack({ nodes: ["edge-1", "edge-2", "cloud-1"], link: NO_SHAPE, log: (level, message) => logged.push({ level, message }) });
  kubectl = kubectlFor(stack.kubeconfigPath);
  await kubectl(["label", "node", "edge-1", "edge-2", "openyurt.io/is-edge-worker=true"]);
  await createNamespaces(stack, [NS]);
});

after(async () => {
  if (skip) return;
  await stack.stop();
});

async function workerUp(): Promise<string> {
  const text = await (await fetch(`${stack.relay.opsUrl}/metrics`)).text();
  return /^edgeloop_worker_up (\d)$/m.exec(text)?.[1] ?? "absent";
}

/** Runs kubectl and says how long it took; rejects as kubectl did. */
async function timed(args: readonly string[], input?: string): Promise<{ out: string; ms: number }> {
  const started = performance.now();
  const out = await kubectl(args, input);
  return { out, ms: performance.now() - started };
}

test("with the Worker unreachable, edge Node, Pod and Endpoints writes are neither refused nor held, and keep their webhooks' decisions; NerveXJob fails closed saying why", { skip }, async () => {
  assert.equal(await workerUp(), "1");
  const link = stack.link;
  assert.ok(link, "the stack runs with a shaped link");
  link.apply({ kind: "down" });
  await waitFor("edgeloop_worker_up 0", workerUp, (up) => up === "0", { timeoutMs: 30_000 });

  const writes: Record<string, number> = {};
  writes.cordon = (await timed(["cordon", "edge-1"])).ms;
  writes.uncordon = (await timed(["uncordon", "edge-1"])).ms;
  writes.label = (await timed(["label", "node", "edge-1", "team=a"])).ms;
  writes.annotate = (await timed(["annotate", "node", "edge-1", `${DURATION}=10m`])).ms;

  // The node guard's own decision, made at the relay: a bad duration is still refused.
  const started = performance.now();
  await assert.rejects(kubectl(["annotate", "node", "edge-2", `${DURATION}=forever`]), /autonomy-duration/);
  writes.refused = performance.now() - started;
  assert.equal(((await stack.cluster.find({ apiVersion: "v1", kind: "Node" }, undefined, "edge-2")) as Obj).metadata.annotations?.[DURATION], undefined);

  // The Pod webhook's patch, made at the relay: a pod created bound to edge-1 has edge-1's 10 minutes from its creation.
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "bound", namespace: NS }, spec: { nodeName: "edge-1", containers: [{ name: "c", image: "nginx" }] } };
  writes.pod = (await timed(["create", "-f", "-"], JSON.stringify(pod))).ms;
  const created = (await stack.cluster.find({ apiVersion: "v1", kind: "Pod" }, NS, "bound")) as Obj;
  const unreachable = (created.spec.tolerations as Obj[]).find((t) => t.key === "node.kubernetes.io/unreachable");
  assert.equal(unreachable?.tolerationSeconds, 600, "the toleration the webhook sets at creation");

  // An Endpoints write naming an edge node goes through the relay-decided webhook.
  const endpoints = { apiVersion: "v1", kind: "Endpoints", metadata: { name: "web", namespace: NS }, subsets: [{ notReadyAddresses: [{ ip: "10.1.0.9", nodeName: "edge-1", targetRef: { kind: "Pod", name: "bound", namespace: NS } }], ports: [{ port: 80 }] }] };
  writes.endpoints = (await timed(["create", "-f", "-"], JSON.stringify(endpoints))).ms;

  for (const [write, ms] of Object.entries(writes)) assert.ok(ms < HELD_MS, `${write} took ${Math.round(ms)} ms with the Worker unreachable: held on the link`);

  // edgeloop's own resource: fail closed, saying the Worker is unreachable.
  await assert.rejects(kubectl(["apply", "-n", NS, "-f", join(NERVEX_FIXTURES, "nervex-mock-nervexjob.yaml")]), /edgeloop Worker is unreachable/);

  link.apply({ kind: "up" });
  await waitFor("edgeloop_worker_up 1", workerUp, (up) => up === "1", { timeoutMs: 30_000 });
  assert.match(await kubectl(["apply", "-n", NS, "-f", join(NERVEX_FIXTURES, "nervex-mock-nervexjob.yaml")]), /created/);
  await waitForObject(stack.cluster, { apiVersion: "v1", kind: "Pod" }, NS, "nervexjob-example-coordinator", () => true, 60_000);

  const outage = logged.filter((line) => line.message === "worker unreachable" || line.message === "worker reachable again").map((line) => line.message);
  assert.deepEqual(outage, ["worker unreachable", "worker reachable again"], "one line when the link goes, one when it returns");
});
