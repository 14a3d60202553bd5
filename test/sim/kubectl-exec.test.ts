/**
 * exec, attach, cp and port-forward on the sim as real kubectl (WebSocket v5.channel.k8s.io)
 * and client-node's Exec meet them: the simulated interpreter's stdout, stderr, stdin and
 * exit status; the API server's and the kubelet's refusals; a reason where the sim cannot.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { after, before, test } from "node:test";
import { Exec, KubeConfig, type V1Status } from "@kubernetes/client-node";
import { waitFor } from "../../cli/wait.ts";
import type { RunningSim } from "../../sim/index.ts";
import { KUBECTL_SKIP, simWithKubectl, kubectlOutcome, type Kubectl, type SimWithKubectl, type KubectlOutcome } from "./kubectl.ts";

const skip = KUBECTL_SKIP;

let stack: SimWithKubectl;
let sim: RunningSim;
let dir: string;
let kubeconfig: string;
let kubectl: Kubectl;

function run(args: readonly string[], input?: string): Promise<KubectlOutcome> {
  return kubectlOutcome(kubeconfig, args, input);
}

async function running(name: string): Promise<void> {
  await waitFor(`pod ${name} Running`, async () => JSON.parse(await kubectl(["get", "pod", name, "-o", "json"])) as { status?: { phase?: string } }, (pod) => pod.status?.phase === "Running");
}

before(async () => {
  stack = await simWithKubectl("exec", { nodes: 1, heartbeatSeconds: 1 });
  ({ sim, kubectl } = stack);
  kubeconfig = stack.kubeconfig;
  dir = dirname(stack.kubeconfig);
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "web" }, spec: { hostname: "web-host", containers: [{ name: "c", image: "busybox:1.36", command: ["sleep", "infinity"], env: [{ name: "GREETING", value: "hello" }] }] } };
  await kubectl(["create", "-f", "-"], JSON.stringify(pod));
  await running("web");
});

after(async () => {
  await stack.stop();
});

test("kubectl exec: stdout, stderr apart, and the command's exit code as kubectl's", { skip }, async () => {
  const outcome = await run(["exec", "web", "--", "sh", "-c", "echo hi; echo $GREETING from $HOSTNAME >&2; exit 3"]);
  assert.equal(outcome.stdout, "hi\n");
  assert.match(outcome.stderr, /^hello from web-host\n/);
  assert.match(outcome.stderr, /command terminated with exit code 3/);
  assert.equal(outcome.code, 3);
  const ok = await run(["exec", "web", "--", "echo", "a  b"]);
  assert.deepEqual([ok.code, ok.stdout], [0, "a  b\n"]);
});

test("kubectl exec -i: cat echoes stdin; sh reads its script from stdin", { skip }, async () => {
  const cat = await run(["exec", "-i", "web", "--", "cat"], "line one\nline two\n");
  assert.deepEqual([cat.code, cat.stdout], [0, "line one\nline two\n"]);
  const sh = await run(["exec", "-i", "web", "--", "sh"], "echo from stdin\nexit 4\n");
  assert.deepEqual([sh.code, sh.stdout], [4, "from stdin\n"]);
});

test("kubectl exec: a missing pod, a missing container and an unknown program answer as kubectl prints them", { skip }, async () => {
  const missing = await run(["exec", "nope", "--", "true"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Error from server \(NotFound\): pods "nope" not found/);
  const container = await run(["exec", "web", "-c", "x", "--", "true"]);
  assert.equal(container.code, 1);
  assert.match(container.stderr, /Error from server \(BadRequest\): container x is not valid for pod web/);
  const ls = await run(["exec", "web", "--", "ls"]);
  assert.equal(ls.code, 127);
  assert.match(ls.stderr, /sh: ls: not found \(the edgeloop sim runs no real programs/);
});

test("kubectl exec into a pod whose node is not Ready: the API server cannot dial its kubelet", { skip }, async () => {
  await kubectl(["create", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "Node", metadata: { name: "dark", annotations: { "sim.edgeloop.dev/heartbeat": "stopped" } } }));
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "stranded" }, spec: { nodeName: "dark", containers: [{ name: "c", image: "busybox:1.36" }] } };
  await kubectl(["create", "-f", "-"], JSON.stringify(pod));
  const outcome = await run(["exec", "stranded", "--", "true"]);
  assert.equal(outcome.code, 1);
  assert.match(outcome.stderr, /Internal error occurred: error dialing backend: node "dark" is not Ready/);
});

test("kubectl exec into a pod not scheduled: the API server has no host to reach", { skip }, async () => {
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "unplaced" }, spec: { nodeSelector: { nowhere: "true" }, containers: [{ name: "c", image: "busybox:1.36" }] } };
  await kubectl(["create", "-f", "-"], JSON.stringify(pod));
  const outcome = await run(["exec", "unplaced", "--", "true"]);
  assert.equal(outcome.code, 1);
  assert.match(outcome.stderr, /Error from server \(BadRequest\): pod unplaced does not have a host assigned/);
});

test("kubectl exec into a crash-looping container: the runtime cannot exec in an exited container", { skip }, async () => {
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "crasher" }, spec: { containers: [{ name: "c", image: "busybox:1.36", command: ["sh", "-c", "exit 1"] }] } };
  await kubectl(["create", "-f", "-"], JSON.stringify(pod));
  await waitFor(
    "crasher's container exited",
    async () => JSON.parse(await kubectl(["get", "pod", "crasher", "-o", "json"])) as { status?: { containerStatuses?: { state?: { running?: unknown }; lastState?: { terminated?: unknown } }[] } },
    (p) => p.status?.containerStatuses?.[0]?.lastState?.terminated !== undefined && p.status.containerStatuses[0].state?.running === undefined,
  );
  const outcome = await run(["exec", "crasher", "--", "true"]);
  assert.equal(outcome.code, 1);
  assert.match(outcome.stderr, /Internal error occurred: error executing command in container: failed to exec in container: container is in CONTAINER_EXITED state/);
});

test("kubectl cp and port-forward fail with the reason the sim cannot serve them", { skip }, async () => {
  const from = await run(["cp", "web:/etc/hosts", join(dir, "hosts")]);
  assert.notEqual(from.code, 0);
  // kubectl cp prints the remote tar's stderr on its stdout.
  assert.match(from.stdout, /tar: the edgeloop sim runs no real containers: they have no file system, so kubectl cp cannot copy/);
  writeFileSync(join(dir, "local.txt"), "x\n");
  const to = await run(["cp", join(dir, "local.txt"), "web:/tmp/local.txt"]);
  assert.notEqual(to.code, 0);
  assert.match(to.stderr, /kubectl cp cannot copy files/);
  const forward = await run(["port-forward", "pod/web", "18080:80"]);
  assert.equal(forward.code, 1);
  assert.match(forward.stderr, /port-forward cannot work on the edgeloop sim: its pods run no real containers/);
});

test("kubectl attach streams what the container writes from then on, until it stops", { skip }, async () => {
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "talker" }, spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox:1.36", command: ["sh", "-c", "sleep 2; echo late; echo err >&2; sleep 1"] }] } };
  await kubectl(["create", "-f", "-"], JSON.stringify(pod));
  await running("talker");
  // With -i, stdin reaching its end does not end the attach; the container stopping does.
  const outcome = await run(["attach", "-i", "talker"], "ignored\n");
  assert.equal(outcome.code, 0);
  assert.equal(outcome.stdout, "late\n");
  assert.match(outcome.stderr, /err\n/);
});

test("a plain (not upgraded) exec request answers 400 Upgrade request required", async () => {
  const response = await fetch(`${sim.url}/api/v1/namespaces/default/pods/web/exec?command=true&stdout=true`, { method: "POST" });
  assert.equal(response.status, 400);
  assert.equal(((await response.json()) as { message: string }).message, "Upgrade request required");
});

test("client-node's Exec: stdout, stderr and the Status with the exit code", async () => {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfig);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks = { stdout: "", stderr: "" };
  stdout.on("data", (data: Buffer) => (chunks.stdout += data.toString()));
  stderr.on("data", (data: Buffer) => (chunks.stderr += data.toString()));
  const status = await new Promise<V1Status>((resolve, reject) => {
    new Exec(config).exec("default", "web", "c", ["sh", "-c", "echo out; echo err >&2; exit 5"], stdout, stderr, null, false, resolve).catch(reject);
  });
  assert.equal(status.status, "Failure");
  assert.equal(status.reason, "NonZeroExitCode");
  assert.deepEqual(status.details?.causes, [{ reason: "ExitCode", message: "5" }]);
  await waitFor("client-node's streams written", () => chunks, (c) => c.stdout === "out\n" && c.stderr === "err\n");
  const echoed = new PassThrough();
  let text = "";
  echoed.on("data", (data: Buffer) => (text += data.toString()));
  const success = await new Promise<V1Status>((resolve, reject) => {
    new Exec(config).exec("default", "web", "c", ["echo", "ok"], echoed, null, Readable.from([]), false, resolve).catch(reject);
  });
  assert.equal(success.status, "Success");
  await waitFor("client-node's stdout written", () => text, (t) => t === "ok\n");
});
