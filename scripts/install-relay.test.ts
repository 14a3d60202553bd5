import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parseAllDocuments } from "yaml";

const script = join(import.meta.dirname, "install-relay.ts");

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env = { ...process.env };
  delete env.EDGELOOP_SECRET;
  const result = spawnSync(process.execPath, [script, ...args], { encoding: "utf8", env, timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The objects of a multi-document YAML (a document that is only a comment, where a dry run left a Secret out, is none). */
function objectsOf<T>(text: string): T[] {
  return parseAllDocuments(text).map((d) => d.toJS() as T | null).filter((o): o is T => o !== null);
}

function secretsOf(file: string): Record<string, unknown> {
  const objects = parseAllDocuments(readFileSync(file, "utf8")).map((d) => d.toJS() as { kind: string; metadata: { name: string }; data?: unknown });
  return Object.fromEntries(objects.filter((o) => o.kind === "Secret").map((o) => [o.metadata.name, o.data]));
}

test("install-relay refuses to run without --image, saying why", () => {
  const { status, stderr } = run("--worker-url", "https://edgeloop.example.workers.dev", "--dry-run");
  assert.equal(status, 2);
  assert.match(stderr.split("\n")[0] ?? "", /^install-relay: --image: is required: no relay image is published for you; build relay\/Dockerfile/);
});

test("--dry-run says on stderr that it generated the keys and where they are; --reuse-secrets keeps them", { timeout: 120_000 }, (t) => {
  const dir = mkdtempSync(join(tmpdir(), "install-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const first = join(dir, "first.yaml");
  const common = ["--worker-url", "https://edgeloop.example.workers.dev", "--image", "registry.example/relay:1", "--dry-run"];
  const generated = run(...common, "--out", first);
  assert.equal(generated.status, 0, generated.stderr);
  assert.equal(generated.stdout, "", "the YAML went to the file");
  assert.equal(statSync(first).mode & 0o777, 0o600, "the file holds keys: private");
  assert.match(generated.stderr, /HMAC key: generated .* Secret edgeloop\/edgeloop-relay-hmac/);
  assert.match(generated.stderr, /TLS key and certificate of the admission front: generated .* Secret edgeloop\/edgeloop-relay-tls/);
  const keys = secretsOf(first);
  const hmac = Buffer.from(String((keys["edgeloop-relay-hmac"] as Record<string, string>).EDGELOOP_SECRET), "base64").toString();
  assert.ok(!generated.stderr.includes(hmac), "the key itself is never printed");

  const second = run(...common, "--reuse-secrets", first, "--include-secrets");
  assert.equal(second.status, 0, second.stderr);
  assert.match(second.stderr, /HMAC key: reused from .*first.yaml/);
  assert.match(second.stderr, /TLS key and certificate of the admission front: reused from/);
  const again = Object.fromEntries(parseAllDocuments(second.stdout).map((d) => d.toJS() as { kind: string; metadata: { name: string }; data?: unknown }).filter((o) => o.kind === "Secret").map((o) => [o.metadata.name, o.data]));
  assert.deepEqual(again, keys, "the same keys, run after run");

  const elsewhere = run(...common, "--namespace", "prod", "--reuse-secrets", first);
  assert.equal(elsewhere.status, 1);
  assert.match(elsewhere.stderr, /holds neither Secret prod\/edgeloop-relay-hmac nor prod\/edgeloop-relay-tls/);
});

test("--dry-run prints no key on stdout unless --include-secrets (the Secrets are left out); stderr says how to get them", { timeout: 120_000 }, (t) => {
  const dir = mkdtempSync(join(tmpdir(), "install-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "keys.yaml");
  const common = ["--worker-url", "https://edgeloop.example.workers.dev", "--image", "registry.example/relay:1", "--dry-run"];
  assert.equal(run(...common, "--out", file).status, 0);
  const hmac = Buffer.from(String((secretsOf(file)["edgeloop-relay-hmac"] as Record<string, string>).EDGELOOP_SECRET), "base64").toString();

  const plain = run(...common, "--reuse-secrets", file);
  assert.equal(plain.status, 0, plain.stderr);
  for (const text of [plain.stdout, plain.stderr]) {
    assert.ok(!text.includes("PRIVATE KEY"), "no private key");
    assert.ok(!text.includes(hmac) && !text.includes(Buffer.from(hmac).toString("base64")), "no HMAC key");
  }
  // Left out rather than emptied: kube-apiserver refuses a kubernetes.io/tls Secret without tls.crt and tls.key, so the printed YAML applies as it is.
  const secrets = objectsOf<{ kind: string }>(plain.stdout).filter((o) => o.kind === "Secret");
  assert.equal(secrets.length, 0);
  // Where each would go, a comment says so and how to make it.
  assert.match(plain.stdout, /^# Secret edgeloop\/edgeloop-relay-tls \(type kubernetes\.io\/tls, keys tls\.crt, tls\.key, ca\.crt\) goes here/m);
  assert.match(plain.stdout, /^# .*kubectl -n edgeloop create secret generic edgeloop-relay-hmac --from-literal=EDGELOOP_SECRET=\.\.\.$/m);
  assert.match(plain.stderr, /--out FILE .*--include-secrets/);
  assert.match(plain.stderr, /create secret generic edgeloop-relay-hmac/);

  const asked = run(...common, "--reuse-secrets", file, "--include-secrets");
  assert.equal(asked.status, 0, asked.stderr);
  assert.ok(asked.stdout.includes(Buffer.from(hmac).toString("base64")), "asked for: the keys are printed");
});

test("--dry-run renders every edge channel the controllers declare: the relay's flags and ports, the channels' Service (the leader's pod) and the Service its peers dial", { timeout: 120_000 }, async () => {
  const { createRegistry } = await import("../functions/registry.ts");
  const { loadControllers } = await import("./lib/controllers.ts");
  const channels = createRegistry(await loadControllers()).manifest.controllers.flatMap((c) => c.channels);
  const rendered = run("--worker-url", "https://edgeloop.example.workers.dev", "--image", "registry.example/relay:1", "--dry-run", "--namespace", "edgeloop");
  assert.equal(rendered.status, 0, rendered.stderr);
  const objects = objectsOf<{ kind: string; metadata: { name: string; namespace?: string }; spec?: Record<string, unknown> }>(rendered.stdout);
  const deployment = objects.find((o) => o.kind === "Deployment") as unknown as { spec: { template: { spec: { containers: { args: string[] }[] } } } };
  const args = deployment.spec.template.spec.containers[0]?.args ?? [];
  for (const channel of channels) {
    assert.equal(args[args.indexOf(`--${channel.name}-port`) + 1], String(channel.port), channel.name);
    assert.equal(args[args.indexOf(`--${channel.name}-host`) + 1], "$(POD_IP)", channel.name);
    if (!channel.service) continue;
    const service = objects.find((o) => o.kind === "Service" && o.metadata.name === channel.service?.name && o.metadata.namespace === channel.service.namespace);
    assert.equal(service?.spec?.externalName, "edgeloop-relay-channels.edgeloop.svc.cluster.local", channel.name);
  }
  // The channels' Service: the leader's pod alone, with each channel's port.
  const leaderOnly = objects.find((o) => o.kind === "Service" && o.metadata.name === "edgeloop-relay-channels");
  assert.deepEqual(leaderOnly?.spec?.selector, { "app.kubernetes.io/name": "edgeloop-relay", "edgeloop.dev/leader": "true" });
  assert.deepEqual((leaderOnly?.spec?.ports as { port: number }[] | undefined)?.map((p) => p.port), channels.map((c) => c.port));
});

test("the install fences the APIs with a NetworkPolicy: the API port for labelled namespaces only; the front for them and --api-server-cidr", { timeout: 120_000 }, () => {
  type Policy = { kind: string; metadata: { name: string; namespace: string }; spec: { podSelector: unknown; policyTypes: string[]; ingress: { from?: Record<string, unknown>[]; ports: { port: number }[] }[] } };
  const common = ["--worker-url", "https://edgeloop.example.workers.dev", "--image", "registry.example/relay:1", "--dry-run"];
  const clients = { namespaceSelector: { matchLabels: { "edgeloop.dev/api-clients": "true" } } };
  const open = run(...common);
  assert.equal(open.status, 0, open.stderr);
  const policies = objectsOf<Policy>(open.stdout).filter((o) => o.kind === "NetworkPolicy");
  assert.equal(policies.length, 1);
  const policy = policies[0] as Policy;
  assert.deepEqual(policy.metadata.namespace, "edgeloop");
  assert.deepEqual(policy.spec.podSelector, { matchLabels: { "app.kubernetes.io/name": "edgeloop-relay" } });
  assert.deepEqual(policy.spec.policyTypes, ["Ingress"]);
  const rule = (port: number): { from?: Record<string, unknown>[] } | undefined => policy.spec.ingress.find((r) => r.ports.some((p) => p.port === port));
  assert.deepEqual(rule(8080)?.from, [clients], "the API port: labelled namespaces only");
  assert.equal(rule(8443)?.from, undefined, "without the API server's CIDRs the front admits every pod (admission must reach it)");
  assert.equal(rule(9090)?.from, undefined, "probes and metrics");
  assert.match(open.stderr, /edgeloop\.dev\/api-clients=true .*the TLS front .* admits every pod: pass --api-server-cidr/);

  const fenced = run(...common, "--api-server-cidr", "10.0.0.0/24, fd00::/64");
  assert.equal(fenced.status, 0, fenced.stderr);
  const front = (objectsOf<Policy>(fenced.stdout).find((o) => o.kind === "NetworkPolicy") as Policy).spec.ingress.find((r) => r.ports.some((p) => p.port === 8443));
  assert.deepEqual(front?.from, [clients, { ipBlock: { cidr: "10.0.0.0/24" } }, { ipBlock: { cidr: "fd00::/64" } }]);

  const bad = run(...common, "--api-server-cidr", "10.0.0.0/33");
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--api-server-cidr: must be 1 to 16 comma-separated CIDRs/);
});
