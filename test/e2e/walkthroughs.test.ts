/**
 * The README's walkthroughs, run as written on `npm start` (the sim): their commands
 * exactly as a user types them (test/support/readme-walkthroughs.ts says the three
 * things the test does for them), in an order that is not the README's. Each must end
 * with the cluster as it found it — namespaces, CRDs, the nodes' labels, annotations,
 * taints and resources, and every object left in any namespace — so each starts from the
 * same cluster whatever ran before it, and runs alone or in any order.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { waitFor } from "../../cli/wait.ts";
import { KUBECTL_SKIP } from "../sim/kubectl.ts";
import { FREE_PORTS, startNpmStart, stopNpmStart, type NpmStart } from "../support/npm-start.ts";
import { inStateFolder, readmeWalkthroughs } from "../support/readme-walkthroughs.ts";

const ROOT = join(import.meta.dirname, "../..");
const run = promisify(execFile);
/** The gang walkthrough waits out a two-minute deadline; the others take under a minute. */
const WALKTHROUGH_MS = 6 * 60_000;
/** How long a clean-up may take to settle (the node lifecycle lifts a taint a moment after Ready). */
const SETTLE_MS = 60_000;
// On the sim only (npm run test:cluster runs the files that start an e2eStack): the
// walkthroughs drive the sim's simulated kubelet, its heartbeats and its four nodes.
const skip = KUBECTL_SKIP;

let dir: string;
let stack: NpmStart;
let kubeconfig: string;

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), "edgeloop-walkthroughs-"));
  stack = await startNpmStart([...FREE_PORTS, "--node-grace-seconds", "5", "--state", dir]);
  kubeconfig = join(dir, "kubeconfig");
});

after(async () => {
  if (skip) return;
  await stopNpmStart(stack.child);
  rmSync(dir, { recursive: true, force: true });
});

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run("kubectl", args, { env: { ...process.env, KUBECONFIG: kubeconfig }, maxBuffer: 64 << 20 });
  return stdout;
}

/** Kinds whose objects come and go on their own (records of what happened, leader leases). */
const TRANSIENT = new Set(["events", "events.events.k8s.io", "leases.coordination.k8s.io"]);

/** What a walkthrough must leave as it found it, as kubectl reads it. */
type ClusterState = Record<"namespaces" | "crds" | "nodes" | "objects", unknown>;

/** The parts of two states that differ: each list's entries gone and entries new. */
function changes(was: ClusterState, is: ClusterState): string {
  const entries = (value: unknown): string[] => (Array.isArray(value) ? value : [value]).map((entry) => JSON.stringify(entry));
  return (Object.keys(was) as (keyof ClusterState)[])
    .map((key) => {
      const [before, now] = [entries(was[key]), entries(is[key])];
      const gone = before.filter((entry) => !now.includes(entry));
      const added = now.filter((entry) => !before.includes(entry));
      return gone.length + added.length === 0 ? "" : `${key}: gone ${gone.join(", ") || "nothing"}; new ${added.join(", ") || "nothing"}`;
    })
    .filter((line) => line !== "")
    .join(" | ");
}

async function clusterState(): Promise<ClusterState> {
  const nodes = JSON.parse(await kubectl("get", "nodes", "-o", "json")) as { items: { metadata: { name: string; labels?: unknown; annotations?: unknown }; spec: { taints?: unknown; unschedulable?: unknown }; status: { capacity?: unknown; allocatable?: unknown } }[] };
  const kinds = (await kubectl("api-resources", "--verbs=list", "--namespaced", "-o", "name")).split("\n").filter((kind) => kind !== "" && !TRANSIENT.has(kind));
  const objects = await kubectl("get", kinds.join(","), "-A", "-o", 'jsonpath={range .items[*]}{.kind} {.metadata.namespace}/{.metadata.name}{"\\n"}{end}');
  return {
    namespaces: (await kubectl("get", "namespaces", "-o", "name")).split("\n").sort(),
    crds: (await kubectl("get", "crds", "-o", "name")).split("\n").sort(),
    nodes: nodes.items.map(({ metadata, spec, status }) => ({ name: metadata.name, labels: metadata.labels, annotations: metadata.annotations, taints: spec.taints, unschedulable: spec.unschedulable, capacity: status.capacity, allocatable: status.allocatable })),
    objects: objects.split("\n").filter((line) => line !== "" && !line.startsWith("Pod kube-system/")).sort(),
  };
}

/** Runs one walkthrough's commands in bash, stopping at the first that fails; its output if one does. */
async function runWalkthrough(script: string): Promise<void> {
  const env = { ...process.env, KUBECONFIG: kubeconfig };
  try {
    await run("bash", ["-c", `set -euo pipefail -x\n${inStateFolder(script, dir)}`], { cwd: ROOT, env, timeout: WALKTHROUGH_MS, maxBuffer: 64 << 20 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    assert.fail(`${(error as Error).message.split("\n")[0]}\n--- stdout\n${stdout ?? ""}\n--- stderr (the commands, then what failed)\n${(stderr ?? "").slice(-6000)}`);
  }
}

test("every README walkthrough runs as written, in reverse order, each leaving the cluster as it found it", { skip, timeout: 20 * 60_000 }, async (t) => {
  const walkthroughs = readmeWalkthroughs(readFileSync(join(ROOT, "README.md"), "utf8"));
  assert.deepEqual(walkthroughs.map((w) => w.title), ["Sedna walkthrough", "NerveX walkthrough", "Gang scheduling walkthrough", "Edge autonomy walkthrough"]);
  const found = await clusterState();
  // After a failure the cluster is no longer the one every walkthrough starts from.
  let failed: string | undefined;
  for (const walkthrough of walkthroughs.toReversed()) {
    const skipped = failed === undefined ? false : `the ${failed} failed first`;
    await t.test(walkthrough.title, { timeout: WALKTHROUGH_MS + SETTLE_MS, skip: skipped }, async () => {
      failed = walkthrough.title;
      await runWalkthrough(walkthrough.script);
      const want = JSON.stringify(found);
      await waitFor(`the ${walkthrough.title}'s clean-up to leave the cluster as it found it`, clusterState, (state) => JSON.stringify(state) === want, {
        timeoutMs: SETTLE_MS,
        intervalMs: 500,
        describe: (left) => changes(found, left),
      });
      failed = undefined;
    });
  }
});
