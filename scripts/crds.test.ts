import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parseManifests } from "../functions/kit/testing/index.ts";

const script = join(import.meta.dirname, "crds.ts");
const ROOT = join(import.meta.dirname, "..");

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [script, ...args], { encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const CRDS = ["aggregatorconfigs.nervex.sensetime.com", "datasets.sedna.io", "federatedlearningjobs.sedna.io", "jointinferenceservices.sedna.io", "models.sedna.io", "nervexjobs.nervex.sensetime.com", "podgroups.scheduling.x-k8s.io"];

test("npm run crds prints one CRD per custom resource kind, loaded from the controller folders", () => {
  const { status, stdout } = run();
  assert.equal(status, 0);
  const crds = parseManifests(stdout) as { kind: string; metadata: { name: string } }[];
  assert.deepEqual(crds.map((c) => c.kind), Array(CRDS.length).fill("CustomResourceDefinition"));
  assert.deepEqual(crds.map((c) => c.metadata.name).sort(), CRDS);
});

test("--out writes one file per CRD; --help and bad flags are answered", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "crds-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.equal(run("--out", dir).status, 0);
  assert.deepEqual(readdirSync(dir).sort(), CRDS.map((name) => `${name}.yaml`));
  assert.match(readFileSync(join(dir, "models.sedna.io.yaml"), "utf8"), /openAPIV3Schema/);
  const help = run("--help");
  assert.equal(help.status, 0);
  assert.match(help.stdout, /usage: npm run --silent crds/);
  const bad = run("--nope");
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /nope/);
});

/** `npm run ARGS` in the repository, with none of the npm settings of the npm that runs this test. */
function npm(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith("npm_")));
  const result = spawnSync("npm", ["run", ...args], { cwd: ROOT, env, encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test("npm run --silent crds | kubectl apply -f -: stdout is nothing but the CRDs' YAML", () => {
  const { status, stdout } = npm("--silent", "crds");
  assert.equal(status, 0);
  const crds = parseManifests(stdout) as { kind: string }[];
  assert.equal(crds.length, CRDS.length);
  assert.ok(crds.every((c) => c.kind === "CustomResourceDefinition"));
});

test("npm run crds piped without --silent: npm's banner cannot be taken back, so stderr says how to pipe it", () => {
  const { status, stdout, stderr } = npm("crds");
  assert.equal(status, 0);
  assert.match(stdout, /^\n> edgeloop@[^ ]+ crds\n/, "npm 7+ prints the banner on stdout");
  assert.match(stderr, /run: npm run --silent crds \| kubectl apply -f -/);
});
