/**
 * The real kubectl against the sim where issue 27 found it wanting: `auth can-i` (and
 * `--list`) and `auth whoami` answer; a deletecollection answers what it deleted; a new
 * namespace gets its `default` ServiceAccount; a TLS Secret without its keys is refused;
 * what `install-relay --dry-run` prints without `--out` passes a server-side dry run;
 * `kubectl debug` does not crash kubectl.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import { SIM_USER } from "../../sim/kubeconfig.ts";
import { KUBECTL_SKIP, simWithKubectl, kubectlOutcome, type Kubectl, type SimWithKubectl } from "./kubectl.ts";

const skip = KUBECTL_SKIP;

let stack: SimWithKubectl;
let kubectl: Kubectl;

/** What kubectl wrote to stderr (a run that must fail fails). */
async function failure(args: readonly string[], input?: string): Promise<string> {
  const outcome = await kubectlOutcome(stack.kubeconfig, args, input);
  assert.notEqual(outcome.code, 0, `kubectl ${args.join(" ")} should have failed: ${outcome.stdout}`);
  return outcome.stderr;
}

/** What kubectl wrote to stderr, whatever its exit code. */
async function stderrOf(args: readonly string[]): Promise<string> {
  return (await kubectlOutcome(stack.kubeconfig, args)).stderr;
}

before(async () => {
  stack = await simWithKubectl("api", { nodes: 1 });
  ({ kubectl } = stack);
});

after(async () => {
  await stack.stop();
});

test("kubectl auth can-i says yes (to anything, --list too); whoami names the sim's admin", { skip }, async () => {
  assert.equal((await kubectl(["auth", "can-i", "delete", "nodes"])).trim(), "yes");
  assert.equal((await kubectl(["auth", "can-i", "create", "deployments", "-n", "elsewhere", "--as", "bob"])).trim(), "yes");
  assert.equal((await kubectl(["auth", "can-i", "get", "/healthz"])).trim(), "yes");
  assert.match(await kubectl(["auth", "can-i", "--list"]), /^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
  const whoami = JSON.parse(await kubectl(["auth", "whoami", "-o", "json"])) as { status: { userInfo: { username: string; groups: string[] } } };
  assert.deepEqual(whoami.status.userInfo, { username: SIM_USER, groups: ["system:masters", "system:authenticated"] });
});

test("kubectl delete --all (a deletecollection with kubectl's own --all is one DELETE per object; the raw one answers the deleted list)", { skip }, async () => {
  await kubectl(["create", "configmap", "one", "--from-literal=a=1"]);
  await kubectl(["create", "configmap", "two", "--from-literal=a=1"]);
  await kubectl(["label", "configmap", "one", "two", "batch=x"]);
  const deleted = JSON.parse(await kubectl(["delete", "--raw", "/api/v1/namespaces/default/configmaps?labelSelector=batch%3Dx"])) as { kind: string; items: { metadata: { name: string } }[] };
  assert.deepEqual([deleted.kind, deleted.items.map((i) => i.metadata.name)], ["ConfigMapList", ["one", "two"]]);
});

test("a new namespace gets its default ServiceAccount", { skip }, async () => {
  await kubectl(["create", "namespace", "fresh"]);
  await waitFor("the default ServiceAccount of fresh", () => kubectl(["get", "serviceaccount", "default", "-n", "fresh", "-o", "name"]).catch(() => ""), (out) => out.trim() === "serviceaccount/default", { timeoutMs: 10_000 });
});

test("a kubernetes.io/tls Secret without its keys is refused as kube-apiserver refuses it", { skip }, async () => {
  const stderr = await failure(["create", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "bare" }, type: "kubernetes.io/tls" }));
  assert.equal(stderr.trim(), 'The Secret "bare" is invalid: \n* data[tls.crt]: Required value\n* data[tls.key]: Required value');
});

test("install-relay --dry-run without --out prints what kubectl apply --dry-run=server accepts (where the Secrets would go, a comment)", { skip, timeout: 120_000 }, async () => {
  const { EDGELOOP_SECRET: _secret, ...env } = process.env;
  const rendered = spawnSync(process.execPath, [join(import.meta.dirname, "..", "..", "scripts", "install-relay.ts"), "--worker-url", "https://edgeloop.example.workers.dev", "--image", "registry.example/relay:1", "--dry-run"], { encoding: "utf8", timeout: 60_000, env });
  assert.equal(rendered.status, 0, rendered.stderr);
  assert.match(rendered.stdout, /^# Secret edgeloop\/edgeloop-relay-tls /m);
  // A server-side dry run creates no namespace, on a real API server as here: those the install makes are made first.
  const namespaces = [...rendered.stdout.matchAll(/^kind: Namespace\nmetadata:\n {2}name: (\S+)$/gm)].map((m) => m[1] ?? "");
  assert.ok(namespaces.includes("edgeloop"), rendered.stdout.slice(0, 200));
  for (const ns of namespaces) await kubectl(["create", "namespace", ns]);
  const applied = await kubectl(["apply", "--dry-run=server", "-f", "-"], rendered.stdout);
  assert.match(applied, /deployment\.apps\/edgeloop-relay created \(server dry run\)/);
  assert.doesNotMatch(applied, /secret\//);
});

test("kubectl debug does not crash kubectl (a NotFound carries its details)", { skip, timeout: 60_000 }, async () => {
  await kubectl(["run", "target", "--image=busybox"]);
  assert.doesNotMatch(await stderrOf(["debug", "target", "--image=busybox", "--profile=general"]), /panic|invalid memory address/);
  const missing = await failure(["debug", "nope", "--image=busybox", "--profile=general"]);
  assert.doesNotMatch(missing, /panic|invalid memory address/);
  assert.match(missing, /pods "nope" not found/);
});
