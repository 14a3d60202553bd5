/**
 * `npm run cluster` as a person uses it: it prints `control plane ready`, kubectl sees
 * Ready nodes, the sim's conventions hold on the real control plane (a stopped heartbeat
 * makes the real node-lifecycle controller mark the node NotReady and taint it, removing
 * the annotation brings it back; run-seconds/exit-code end pods; a Job completes through
 * the real Job controller), a taken port is one line naming the flag, and Ctrl-C stops
 * every process it started.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import { kubectlFor, type Kubectl } from "../sim/kubectl.ts";
import { clusterReady, launchCluster } from "../support/cluster-cli.ts";

const MAIN = join(import.meta.dirname, "../../cluster/main.ts");
const GRACE_SECONDS = 10;

let dir: string;
let child: ChildProcess;
let ready: Record<string, unknown>;
let kubectl: Kubectl;

function launch(args: readonly string[]): ChildProcess {
  return launchCluster(dir, args);
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "edgeloop-cluster-test-"));
  child = launch(["--port", "0", "--nodes", "kw-a,kw-b", "--node-grace-seconds", String(GRACE_SECONDS)]);
  ready = await clusterReady(child);
  kubectl = kubectlFor(String(ready.kubeconfig));
});

after(async () => {
  if (child.exitCode === null) {
    child.kill("SIGINT");
    await once(child, "exit");
  }
  rmSync(dir, { recursive: true, force: true });
});

async function nodeReady(name: string): Promise<string> {
  return (await kubectl(["get", "node", name, "-o", "jsonpath={.status.conditions[?(@.type=='Ready')].status}"])).trim();
}

test("control plane ready: the pinned release serves, with the nodes asked for Ready", async () => {
  assert.equal(ready.version, "v1.36.3");
  assert.match(String(ready.server), /^https:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(String(ready.kubeconfig), join(dir, "kubeconfig"));
  const version = JSON.parse(await kubectl(["version", "-o", "json"])) as { serverVersion: { gitVersion: string } };
  assert.equal(version.serverVersion.gitVersion, "v1.36.3");
  for (const node of ["kw-a", "kw-b"]) await waitFor(`${node} Ready (its Ready status)`, () => nodeReady(node), (status) => status === "True", { timeoutMs: 30_000 });
});

test("RBAC is enforced: an unprivileged ServiceAccount is refused what it was not granted", async () => {
  await kubectl(["create", "serviceaccount", "nobody"]);
  const answer = (await kubectl(["auth", "can-i", "create", "pods", "--as", "system:serviceaccount:default:nobody"]).catch((error: Error) => error.message)).trim();
  assert.match(answer, /no/);
});

test("a stopped heartbeat: the real node-lifecycle controller marks the node NotReady and taints it; removing the annotation brings it back", async () => {
  await kubectl(["annotate", "node", "kw-b", "sim.edgeloop.dev/heartbeat=stopped"]);
  await waitFor("kw-b NotReady (its Ready status)", () => nodeReady("kw-b"), (status) => status === "Unknown", { timeoutMs: (GRACE_SECONDS + 30) * 1000 });
  const taints = JSON.parse(await kubectl(["get", "node", "kw-b", "-o", "jsonpath={.spec.taints}"])) as { key: string; effect: string }[];
  assert.ok(taints.some((t) => t.key === "node.kubernetes.io/unreachable" && t.effect === "NoExecute"), JSON.stringify(taints));
  await kubectl(["annotate", "node", "kw-b", "sim.edgeloop.dev/heartbeat-"]);
  await waitFor("kw-b Ready again (its Ready status)", () => nodeReady("kw-b"), (status) => status === "True", { timeoutMs: 60_000 });
});

test("pods end as on the sim: run-seconds and exit-code, and a Job's `sleep 1` completes through the real Job controller", async () => {
  await kubectl(["run", "short", "--image=busybox", "--restart=Never", "--annotations=sim.edgeloop.dev/run-seconds=1", "--annotations=sim.edgeloop.dev/exit-code=2", "--", "serve"]);
  await kubectl(["create", "job", "sleeper", "--image=busybox", "--", "sleep", "1"]);
  await waitFor("short Failed (its phase)", async () => (await kubectl(["get", "pod", "short", "-o", "jsonpath={.status.phase}"])).trim(), (phase) => phase === "Failed", { timeoutMs: 30_000 });
  const code = await kubectl(["get", "pod", "short", "-o", "jsonpath={.status.containerStatuses[0].state.terminated.exitCode}"]);
  assert.equal(code.trim(), "2");
  await waitFor("sleeper Complete (its succeeded count)", async () => (await kubectl(["get", "job", "sleeper", "-o", "jsonpath={.status.succeeded}"])).trim(), (succeeded) => succeeded === "1", { timeoutMs: 30_000 });
});

test("a port in use is one line naming the flag, and nothing is started", async () => {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  try {
    const other = spawn(process.execPath, [MAIN, "--state", join(dir, "other"), "--port", String(port)], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    other.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const [code] = (await once(other, "exit")) as [number];
    assert.equal(code, 1);
    assert.equal(stderr.trim(), `cluster: port ${port} is in use: pass --port 0 or another port`);
    assert.equal(existsSync(join(dir, "other", "pids.json")), false);
  } finally {
    server.close();
  }
});

test("Ctrl-C stops every process it started", async () => {
  const pids = JSON.parse(readFileSync(join(dir, "pids.json"), "utf8")) as number[];
  assert.ok(pids.length >= 6, `etcd, kube-apiserver, controller manager, scheduler and two kwoks: ${pids.join(",")}`);
  child.kill("SIGINT");
  const [code] = (await once(child, "exit")) as [number];
  assert.equal(code, 0);
  const alive = pids.filter((pid) => existsSync(`/proc/${pid}`));
  assert.deepEqual(alive, []);
});
