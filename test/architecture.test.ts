/**
 * The architecture, checked on what ships: esbuild bundles the relay, the Worker (with
 * every controller) and the sim, and each bundle's inputs must come only from the folders
 * that side may use. Then the lint rules that enforce the same boundaries file by file
 * (eslint.config.js) are shown to fire, with probes for every zone, so a rule that silently stops
 * resolving imports fails here instead of passing everything.
 */
import assert from "node:assert/strict";
import { globSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { build, type BuildOptions } from "esbuild";
import { ESLint } from "eslint";
import { relayBuildOptions, workerBuildOptions } from "../scripts/lib/bundle.ts";
import { controllerFiles, durableFiles, ROOT } from "../scripts/lib/controllers.ts";

/** What esbuild read (paths relative to the repository root) and what it left external. */
interface Bundled {
  readonly inputs: readonly string[];
  readonly externals: readonly string[];
}

async function bundle(options: BuildOptions): Promise<Bundled> {
  const result = await build({ bundle: true, format: "esm", write: false, metafile: true, logLevel: "silent", absWorkingDir: ROOT, ...options });
  const { metafile } = result;
  if (!metafile) throw new Error("esbuild returned no metafile");
  const externals = Object.values(metafile.outputs).flatMap((output) => output.imports.filter((i) => i.external).map((i) => i.path));
  return { inputs: Object.keys(metafile.inputs).sort(), externals: [...new Set(externals)].sort() };
}

/** The id esbuild gives the Worker's virtual module of controllers (scripts/lib/bundle.ts). */
const VIRTUAL_CONTROLLERS = "edgeloop:edgeloop:controllers";
const VIRTUAL_DURABLES = "edgeloop:edgeloop:durable-objects";
const VIRTUAL_RELAY_DECIDED = "edgeloop:#relay-decided";

/** The inputs that start with none of the allowed prefixes. */
function outside(inputs: readonly string[], allowed: readonly string[]): string[] {
  return inputs.filter((input) => !allowed.some((prefix) => input.startsWith(prefix)));
}

/** One path a line; a package's files as one line (its folder and how many). */
function list(paths: readonly string[]): string {
  const lines = new Map<string, number>();
  for (const path of paths) {
    const pkg = /^node_modules\/(?:@[^/]+\/)?[^/]+\//.exec(path)?.[0];
    lines.set(pkg ?? path, (lines.get(pkg ?? path) ?? 0) + 1);
  }
  return [...lines].map(([line, n]) => `\n  ${line}${line.endsWith("/") ? ` (${n} files)` : ""}`).join("");
}

let relay: Bundled;
let worker: Bundled;
let sim: Bundled;
const controllers = controllerFiles().map((file) => file.slice(ROOT.length + 1));

before(async () => {
  [relay, worker, sim] = await Promise.all([
    // The very options that build what ships (scripts/lib/bundle.ts), without writing anything.
    bundle({ ...relayBuildOptions("relay.mjs"), outfile: undefined, write: false }),
    bundle(workerBuildOptions()),
    bundle({ entryPoints: ["sim/main.ts"], platform: "node", target: "node22" }),
  ]);
});

test("the relay bundles only relay/, protocol/, cli/, packages and the families' webhooks it decides (no Worker shell, no Durable Object)", () => {
  assert.ok(relay.inputs.includes("relay/main.ts"), `relay/main.ts is not an input:${list(relay.inputs)}`);
  // ADR 0034: the webhooks declared decidedAt: relay run in the relay, so the controllers (pure) come along, through one virtual module.
  assert.ok(relay.inputs.includes("functions/relay-decided.ts") && relay.inputs.includes(VIRTUAL_RELAY_DECIDED), `the relay bundle lacks the webhooks it decides:${list(relay.inputs)}`);
  const bad = outside(relay.inputs, ["relay/", "protocol/", "cli/", "node_modules/", "functions/controllers/", "functions/kit/", "functions/relay-decided.ts", VIRTUAL_RELAY_DECIDED]);
  assert.ok(bad.length === 0, `the relay bundle reaches outside relay/, protocol/, cli/, node_modules/ and the families' pure code:${list(bad)}`);
  // Each family's relay-webhooks.ts and what it imports, never a whole family (its controller.ts) nor Worker-only code.
  const runtime = relay.inputs.filter((input) => /^functions\/kit\/(durable-object|outbox|sql|sql-meta)\.ts$/.test(input) || /\/(durable|controller)\.ts$/.test(input));
  assert.ok(runtime.length === 0, `the relay bundle holds Worker-only code or whole families:${list(runtime)}`);
});

test("the Worker bundles only functions/, durable/, protocol/ and its packages, and every controller", () => {
  const missing = ["functions/worker.ts", "durable/index.ts", ...durableFiles().map((file) => file.slice(ROOT.length + 1)), ...controllers].filter((file) => !worker.inputs.includes(file));
  assert.ok(missing.length === 0, `expected inputs missing from the Worker bundle:${list(missing)}`);
  const bad = outside(worker.inputs, ["functions/", "durable/", "protocol/", "node_modules/", VIRTUAL_CONTROLLERS, VIRTUAL_DURABLES]);
  assert.ok(bad.length === 0, `the Worker bundle reaches outside functions/, durable/, protocol/ and node_modules/:${list(bad)}`);
});

test("no bundle contains test code (testing/ folders, *.test.ts, *.bench.ts, test/)", () => {
  const isTestCode = (input: string): boolean => !input.startsWith("node_modules/") && (/(^|\/)testing\//.test(input) || /\.(test|bench)\.ts$/.test(input) || input.startsWith("test/"));
  for (const [name, bundled] of [["relay", relay], ["Worker", worker], ["sim", sim]] as const) {
    const bad = bundled.inputs.filter(isTestCode);
    assert.ok(bad.length === 0, `the ${name} bundle contains test code:${list(bad)}`);
  }
});

test("the Worker holds no cluster client: no @kubernetes/client-node, no undici", () => {
  const bad = worker.inputs.filter((input) => /^node_modules\/(@kubernetes\/client-node|undici)\//.test(input));
  assert.ok(bad.length === 0, `the Worker bundle contains a cluster client:${list(bad)}`);
});

test("the Worker's packages are hono and zod, and it imports no node: built-ins", () => {
  const bad = worker.inputs.filter((input) => input.startsWith("node_modules/") && !/^node_modules\/(hono|zod)\//.test(input));
  assert.ok(bad.length === 0, `the Worker bundle holds packages other than hono and zod:${list(bad)}`);
  const builtins = worker.externals.filter((path) => !path.startsWith("cloudflare:"));
  assert.ok(builtins.length === 0, `the Worker imports modules workerd does not provide (only cloudflare:* is external):${list(builtins)}`);
});

test("the sim bundles only sim/, protocol/, cli/ and packages", () => {
  assert.ok(sim.inputs.includes("sim/main.ts"), `sim/main.ts is not an input:${list(sim.inputs)}`);
  const bad = outside(sim.inputs, ["sim/", "protocol/", "cli/", "node_modules/"]);
  assert.ok(bad.length === 0, `the sim bundle reaches outside sim/, protocol/, cli/ and node_modules/:${list(bad)}`);
});

// --- The lint rules fire -----------------------------------------------------------------

/** A file that is not there: what it imports, and the rule (and message words) expected on that import. */
interface Probe {
  readonly file: string;
  readonly imports: string;
  readonly rule: "import-x/no-restricted-paths" | "no-restricted-imports" | "no-restricted-syntax" | null;
  readonly says?: string;
}

/** A specifier for `target` (from the root) as written in `file` (from the root). */
function specifier(file: string, target: string): string {
  if (target.startsWith("node:")) return target;
  const up = file.split("/").length - 1;
  return `${up === 0 ? "./" : "../".repeat(up)}${target}`;
}

const families = readdirSync(join(ROOT, "functions/controllers"), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
/** One existing module per family (another family's probe imports it). */
const familyModule = new Map(families.flatMap((family) => globSync("**/*.ts", { cwd: join(ROOT, "functions/controllers", family) }).filter((f) => !f.endsWith(".test.ts")).slice(0, 1).map((f) => [family, `functions/controllers/${family}/${f}`] as const)));

/** Test support folders (functions/kit/testing/, relay/testing/, ...), each with one of its modules. */
const TOP = ["protocol", "cli", "sim", "relay", "durable", "functions", "scripts"];
const testingModules = [...new Map(TOP.flatMap((top) => globSync(`${top}/**/testing/*.ts`, { cwd: ROOT })).sort().map((f) => [f.slice(0, f.lastIndexOf("/")), f] as const)).values()];

const R = "import-x/no-restricted-paths";
const PROBES: Probe[] = [
  { file: "protocol/_probe.ts", imports: "relay/index.ts", rule: R, says: "protocol/ imports nothing" },
  { file: "protocol/_probe.ts", imports: "cli/log.ts", rule: R, says: "protocol/ imports nothing" },
  { file: "protocol/_probe.ts", imports: "node:crypto", rule: "no-restricted-imports", says: "no node:" },
  { file: "cli/_probe.ts", imports: "sim/index.ts", rule: R, says: "cli/ may import only" },
  { file: "cli/_probe.ts", imports: "protocol/index.ts", rule: null },
  { file: "sim/_probe.ts", imports: "relay/index.ts", rule: R, says: "sim/ may import only" },
  { file: "sim/_probe.ts", imports: "functions/app.ts", rule: R, says: "sim/ may import only" },
  { file: "sim/_probe.ts", imports: "cli/log.ts", rule: null },
  { file: "relay/_probe.ts", imports: "sim/index.ts", rule: R, says: "relay/ may import only" },
  { file: "relay/_probe.ts", imports: "scripts/lib/bundle.ts", rule: R, says: "relay/ may import only" },
  { file: "relay/_probe.ts", imports: "durable/index.ts", rule: R, says: "relay/ may import only" },
  { file: "relay/_probe.ts", imports: "node:http", rule: null },
  { file: "durable/_probe.ts", imports: "functions/kit/controller.ts", rule: R, says: "durable/ may import only" },
  { file: "durable/_probe.ts", imports: "node:crypto", rule: "no-restricted-imports", says: "no node:" },
  { file: "functions/_probe.ts", imports: "cli/log.ts", rule: R, says: "functions/ may import only" },
  { file: "functions/_probe.ts", imports: "test/support/fake-clock.ts", rule: R, says: "functions/ may import only" },
  { file: "functions/_probe.ts", imports: "functions/kit/testing/index.ts", rule: R, says: "test support" },
  { file: "functions/_probe.ts", imports: "node:fs", rule: "no-restricted-imports", says: "no node:" },
  { file: "functions/_probe.ts", imports: "durable/index.ts", rule: null },
  { file: "functions/kit/_probe.ts", imports: "functions/app.ts", rule: R, says: "functions/kit/ may import only" },
  { file: "functions/kit/_probe.ts", imports: "functions/deps.ts", rule: R, says: "functions/kit/ may import only" },
  { file: "functions/kit/_probe.ts", imports: controllers[0] ?? "functions/app.ts", rule: R, says: "functions/kit/ may import only" },
  { file: "functions/kit/_probe.ts", imports: "functions/kit/testing/index.ts", rule: R, says: "test support" },
  ...families.flatMap((family): Probe[] => [
    { file: `functions/controllers/${family}/_probe.ts`, imports: "durable/index.ts", rule: R, says: `functions/controllers/${family}/ may import only` },
    { file: `functions/controllers/${family}/_probe.ts`, imports: "functions/deps.ts", rule: R, says: `functions/controllers/${family}/ may import only` },
    { file: `functions/controllers/${family}/_probe.ts`, imports: "functions/kit/testing/index.ts", rule: R, says: "test support" },
    { file: `functions/controllers/${family}/_probe.ts`, imports: "functions/kit/controller.ts", rule: null },
    ...families
      .filter((other) => other !== family && familyModule.has(other))
      .map((other): Probe => ({ file: `functions/controllers/${family}/_probe.ts`, imports: familyModule.get(other) ?? "", rule: R, says: `functions/controllers/${family}/ may import only` })),
  ]),
  { file: "scripts/_probe.ts", imports: "test/support/fake-clock.ts", rule: R, says: "scripts/ may import anything except test/" },
  { file: "scripts/_probe.ts", imports: "functions/kit/testing/index.ts", rule: R, says: "test support" },
  { file: "scripts/_probe.ts", imports: "relay/index.ts", rule: null },
  // Test code follows its folder but may also use the test support.
  { file: "relay/_probe.test.ts", imports: "test/support/fake-clock.ts", rule: null },
  { file: "relay/_probe.test.ts", imports: "functions/kit/testing/index.ts", rule: null },
  { file: "relay/_probe.test.ts", imports: "test/worker/client.ts", rule: R, says: "relay/ may import only" },
  { file: "functions/kit/_probe.test.ts", imports: "functions/app.ts", rule: R, says: "functions/kit/ may import only" },
  { file: "functions/kit/_probe.test.ts", imports: "node:fs", rule: null },
  { file: "functions/kit/testing/_probe.ts", imports: "functions/app.ts", rule: R, says: "functions/kit/ may import only" },
  { file: "scripts/_probe.test.ts", imports: "test/worker/client.ts", rule: R, says: "test/support/" },
  { file: "test/_probe.ts", imports: "scripts/lib/bundle.ts", rule: null },
  // Every testing/ folder is closed to the production code of its own top-level folder, and open to its tests.
  ...testingModules.flatMap((module): Probe[] => [
    { file: `${module.split("/")[0]}/_probe.ts`, imports: module, rule: R, says: "test support" },
    { file: `${module.split("/")[0]}/_probe.test.ts`, imports: module, rule: null },
  ]),
];

test("every boundary lint rule fires (type-only imports, re-exports and dynamic imports too)", async () => {
  const eslint = new ESLint({ cwd: ROOT });
  const failures: string[] = [];
  const check = async (probe: Probe, code: string, form: string): Promise<void> => {
    const [result] = await eslint.lintText(code, { filePath: join(ROOT, probe.file) });
    const messages = (result?.messages ?? []).filter((m) => m.line === 1 && m.ruleId !== "@typescript-eslint/no-unused-vars");
    const fired = messages.filter((m) => m.ruleId === probe.rule && (probe.says === undefined || m.message.includes(probe.says)));
    if (probe.rule === null ? messages.length > 0 : fired.length === 0) {
      failures.push(`${probe.file} ${form} ${probe.imports}: expected ${probe.rule ?? "no error"}, got ${JSON.stringify(messages.map((m) => `${m.ruleId}: ${m.message}`))}`);
    }
  };
  for (const probe of PROBES) {
    const from = JSON.stringify(specifier(probe.file, probe.imports));
    const node = probe.imports.startsWith("node:");
    await check(probe, `import { x } from ${from};\nexport const y = x;`, "imports");
    await check(probe, `import type { X } from ${from};\nexport type Y = X;`, "imports (type only)");
    if (!node) await check(probe, `export { x } from ${from};`, "re-exports");
    // TypeScript also accepts `.js` for a `.ts` file: the rules must resolve it the same way.
    if (!node) await check(probe, `import type { X } from ${from.replace(/\.ts"$/, '.js"')};\nexport type Y = X;`, "imports (as .js)");
    const dynamic = probe.rule === "no-restricted-imports" ? { ...probe, rule: "no-restricted-syntax" as const } : probe;
    await check(dynamic, `export const y = import(${from});`, "imports dynamically");
  }
  assert.ok(failures.length === 0, `lint probes that did not behave:${list(failures)}`);
});
