/**
 * Node lifecycle and taint eviction as real kubectl sees them on the sim: a node whose
 * kubelet stops goes Unknown and is tainted unreachable; its pods turn not Ready and move
 * to the Service's notReadyAddresses; each goes when its toleration runs out, counted from
 * when its eviction was scheduled, or stays when it tolerates forever; the node coming
 * back makes it Ready again.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import { startSim, type RunningSim } from "../../sim/index.ts";
import { KUBECTL_SKIP, kubectlFor, type Kubectl } from "./kubectl.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested status

const skip = KUBECTL_SKIP;
const UNREACHABLE = "node.kubernetes.io/unreachable";

let sim: RunningSim;
let dir: string;
let kubectl: Kubectl;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "edgeloop-kubectl-eviction-"));
  // A short grace so the lifecycle runs in test time (heartbeats are whole seconds).
  sim = await startSim({ port: 0, kubeconfigPath: join(dir, "kubeconfig"), nodes: ["cloud", "edge"], nodeGraceSeconds: 2, heartbeatSeconds: 0.25 });
  kubectl = kubectlFor(join(dir, "kubeconfig"));
  await waitFor("2 nodes (nodes listed)", async () => (await sim.cluster.list({ apiVersion: "v1", kind: "Node" })).items.length, (nodes) => nodes === 2);
});

after(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function get(kind: string, name: string): Promise<Obj | undefined> {
  try {
    return JSON.parse(await kubectl(["get", kind, name, "-o", "json"])) as Obj;
  } catch (error) {
    if (/NotFound/.test(String(error))) return undefined;
    throw error;
  }
}

const ready = (pod: Obj | undefined): boolean => (pod?.status?.conditions ?? []).some((c: Obj) => c.type === "Ready" && c.status === "True");
const names = (endpoints: Obj | undefined, field: string): string[] => ((endpoints?.subsets?.[0]?.[field] ?? []) as Obj[]).map((a) => String(a.targetRef.name)).sort();

async function createPod(name: string, tolerationSeconds: number | undefined): Promise<void> {
  const toleration = { key: UNREACHABLE, operator: "Exists", effect: "NoExecute", ...(tolerationSeconds === undefined ? {} : { tolerationSeconds }) };
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name, labels: { app: "web" } }, spec: { nodeSelector: { "kubernetes.io/hostname": "edge" }, tolerations: [toleration], containers: [{ name: "c", image: "busybox:1.36", command: ["sleep", "3600"] }] } };
  await kubectl(["create", "-f", "-"], JSON.stringify(pod));
}

test("an unreachable node: pods not Ready and in notReadyAddresses, evicted when their toleration runs out (not moved by a later change), kept when they tolerate forever", { skip }, async () => {
  await createPod("short", 4);
  await createPod("forever", undefined);
  await kubectl(["create", "service", "clusterip", "web", "--tcp=80:8080"]);
  await kubectl(["set", "selector", "service", "web", "app=web"]);
  await waitFor("both pods in the endpoints (its addresses)", async () => names(await get("endpoints", "web"), "addresses"), (addresses) => addresses.length === 2);
  const defaults = (await get("pod", "forever"))?.spec.tolerations.map((t: Obj) => `${t.key}:${t.tolerationSeconds ?? "forever"}`);
  assert.deepEqual(defaults, [`${UNREACHABLE}:forever`, "node.kubernetes.io/not-ready:300"], "DefaultTolerationSeconds added only the not-ready one");

  await kubectl(["annotate", "node", "edge", "sim.edgeloop.dev/heartbeat=stopped"]);
  const node = await waitFor("edge Unknown and tainted", () => get("node", "edge"), (n) => (n?.spec.taints ?? []).some((t: Obj) => t.key === UNREACHABLE && t.effect === "NoExecute"));
  assert.equal(node?.status.conditions.find((c: Obj) => c.type === "Ready").status, "Unknown");
  await waitFor("both pods not Ready, in notReadyAddresses (those)", async () => names(await get("endpoints", "web"), "notReadyAddresses"), (notReady) => notReady.length === 2);
  // A longer toleration now does not move the eviction already scheduled.
  const short = await get("pod", "short");
  const index = (short?.spec.tolerations as Obj[]).findIndex((t) => t.key === UNREACHABLE);
  await kubectl(["patch", "pod", "short", "--type=json", "-p", JSON.stringify([{ op: "replace", path: `/spec/tolerations/${index}/tolerationSeconds`, value: 600 }])]);
  await waitFor("short evicted", () => get("pod", "short"), (pod) => pod === undefined, { timeoutMs: 10_000 });
  const events = await kubectl(["get", "events", "--field-selector", "reason=TaintManagerEviction", "-o", "jsonpath={.items[*].message}"]);
  assert.match(events, /Marking for deletion Pod default\/short/);
  assert.deepEqual(names(await get("endpoints", "web"), "notReadyAddresses"), ["forever"]);

  // Changing a toleration other than its seconds is refused. (Changing the unreachable one's key would pass, as
  // upstream: DefaultTolerationSeconds, which also runs on updates, adds an unreachable toleration back.)
  const refused = await kubectl(["patch", "pod", "forever", "--type=json", "-p", JSON.stringify([{ op: "replace", path: "/spec/tolerations/1/operator", value: "Equal" }])]).catch((error: unknown) => String(error));
  assert.match(refused, /The Pod "forever" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds/);

  await kubectl(["annotate", "node", "edge", "sim.edgeloop.dev/heartbeat-"]);
  await waitFor("edge Ready and untainted (its taints)", async () => (await get("node", "edge"))?.spec.taints, (taints) => taints === undefined);
  await waitFor("forever Ready again, an address (ready, addresses)", async () => ({ ready: ready(await get("pod", "forever")), addresses: names(await get("endpoints", "web"), "addresses").join() }), (seen) => seen.ready && seen.addresses === "forever");
});
