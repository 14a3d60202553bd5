/**
 * The relay bundle (`npm run build:relay`) on the oldest Node `engines` allows: that Node
 * is what every bundled dependency needs, and the bundle answers `--help` and runs (informers
 * synced against the sim, the Worker reached) under it, installed as the `node` npm package.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { defaultCacheDir } from "../cluster/build.ts";
import { compareVersions, enginesMinimum, nodeBinary } from "../test/support/engines-node.ts";
import { waitFor } from "../cli/wait.ts";
import { startSim } from "../sim/index.ts";
import { bundleRelay } from "./lib/bundle.ts";
import { ROOT } from "./lib/controllers.ts";
import { installCrds } from "./lib/crds-install.ts";
import { startWorker } from "./lib/worker.ts";

const MINIMUM = enginesMinimum(join(ROOT, "package.json"));

/** The oldest Node a dependency's `engines.node` allows (`>=X.Y.Z`, or the lowest `>=` of `a || b` ranges), as X.Y.Z. */
function dependencyMinimum(range: string): string {
  const floors = [...range.matchAll(/>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/g)].map((m) => `${m[1] ?? 0}.${m[2] ?? 0}.${m[3] ?? 0}`);
  return floors.sort(compareVersions)[0] ?? "0.0.0";
}

test("engines.node is the newest Node any bundled dependency needs (undici 8 needs 22.19)", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  const needs = Object.keys(pkg.dependencies).map((name) => {
    const engines = (JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as { engines?: { node?: string } }).engines?.node;
    return { name, minimum: engines ? dependencyMinimum(engines) : "0.0.0" };
  });
  for (const { name, minimum } of needs) assert.ok(compareVersions(MINIMUM, minimum) >= 0, `engines.node >=${MINIMUM}, but ${name} needs >=${minimum}`);
  assert.ok(needs.some(({ minimum }) => compareVersions(MINIMUM, minimum) === 0), `engines.node >=${MINIMUM} is older than nothing it must be: name the oldest Node a dependency needs`);
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  assert.match(readme, new RegExp(`\`engines\` is \`>=${MINIMUM.replaceAll(".", "\\.")}\``), "the README names the same Node");
});

test(`the relay bundle answers --help and runs against the sim on Node ${MINIMUM} (the node npm package), the oldest engines allows`, { timeout: 600_000 }, async (t) => {
  const node = nodeBinary(MINIMUM, defaultCacheDir(process.env));
  assert.equal(spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim(), `v${MINIMUM}`);
  const dir = mkdtempSync(join(tmpdir(), "relay-bundle-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const bundle = join(dir, "relay.mjs");
  await bundleRelay(bundle);

  const help = spawnSync(node, [bundle, "--help"], { encoding: "utf8", cwd: dir, timeout: 60_000 });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^usage: EDGELOOP_SECRET=\.\.\. npm run relay -- --worker-url URL/);

  const kubeconfigPath = join(dir, "kubeconfig");
  const sim = await startSim({ port: 0, kubeconfigPath, nodes: 1 });
  t.after(() => sim.stop());
  await installCrds(kubeconfigPath);
  const secret = "a-secret-of-at-least-16-chars";
  const worker = await startWorker({ secret, port: 0 });
  t.after(() => worker.stop());
  // Outside the clone, no node_modules within reach: the bundle alone.
  const relay = spawn(node, [bundle, "--worker-url", worker.url, "--worker-keep-alive-seconds", "4", "--kubeconfig", kubeconfigPath, "--ops-port", "0", "--log-format", "json"], { cwd: dir, env: { PATH: process.env.PATH ?? "", EDGELOOP_SECRET: secret }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  relay.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  t.after(() => void (relay.exitCode === null && relay.kill("SIGKILL")));
  const ops = await new Promise<string>((resolve, reject) => {
    createInterface({ input: relay.stdout }).on("line", (line) => {
      const entry = JSON.parse(line) as { msg?: string; ops?: string };
      if (entry.msg === "relay ready" && entry.ops) resolve(entry.ops);
    });
    relay.once("exit", (code) => reject(new Error(`the bundle exited with ${String(code)} on Node ${MINIMUM}: ${stderr}`)));
  });
  await waitFor("the bundle's /readyz", () => fetch(`${ops}/readyz`).then((r) => r.status, () => 0), (status) => status === 200, { timeoutMs: 30_000 });
  assert.equal((await fetch(`${ops}/livez`)).status, 200);
  assert.match(await (await fetch(`${ops}/metrics`)).text(), /^process_cpu_seconds_total [0-9.e+]+$/m, "alone in its process: unlabelled process metrics");
  const exited = new Promise<number | null>((resolve) => relay.once("exit", (code) => resolve(code)));
  relay.kill("SIGTERM");
  assert.equal(await exited, 0, stderr);
});
