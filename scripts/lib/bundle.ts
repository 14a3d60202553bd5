/**
 * Bundles the Worker and the relay with esbuild. The Worker's virtual module
 * `edgeloop:controllers` imports the default export of every controller folder, so the
 * registry needs no central list; `edgeloop:durable-objects` re-exports the Durable Object
 * classes controller families own.
 */
import { build, type BuildOptions, type Plugin } from "esbuild";
import { join } from "node:path";
import { controllerFiles, durableFiles, relayWebhookFiles, ROOT } from "./controllers.ts";

/** What to bundle. */
export interface BundleOptions {
  /** More roots holding `<name>/controller.ts` folders (tests define their own controllers). */
  readonly extraControllerDirs?: readonly string[];
  readonly minify?: boolean;
}

/** What both bundles share: one ES module, esbuild quiet (errors are thrown). */
const ESM_BUNDLE = { bundle: true, format: "esm", logLevel: "silent" } as const;

/**
 * The virtual modules: `edgeloop:controllers` (every controller's default export) and
 * `edgeloop:durable-objects` (every family's Durable Object classes, re-exported by name).
 */
function controllersPlugin(files: readonly string[], durables: readonly string[]): Plugin {
  const modules: Record<string, string> = {
    "edgeloop:controllers": [...files.map((file, i) => `import c${i} from ${JSON.stringify(file)};`), `export default [${files.map((_, i) => `c${i}`).join(", ")}];`].join("\n"),
    "edgeloop:durable-objects": [...durables.map((file) => `export * from ${JSON.stringify(file)};`), "export {};"].join("\n"),
  };
  return {
    name: "edgeloop-controllers",
    setup(b): void {
      b.onResolve({ filter: /^edgeloop:(controllers|durable-objects)$/ }, (args) => ({ path: args.path, namespace: "edgeloop" }));
      b.onLoad({ filter: /.*/, namespace: "edgeloop" }, (args) => ({ contents: modules[args.path] ?? "", loader: "js", resolveDir: ROOT }));
    },
  };
}

/** The esbuild options of the Worker bundle (the entry is functions/worker.ts): what ships, and what test/architecture.test.ts inspects. */
export function workerBuildOptions(options: BundleOptions = {}): BuildOptions {
  return {
    ...ESM_BUNDLE,
    entryPoints: [join(ROOT, "functions/worker.ts")],
    platform: "neutral",
    target: "es2022",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    external: ["cloudflare:*", "node:*"],
    minify: options.minify ?? false,
    write: false,
    plugins: [controllersPlugin(controllerFiles(options.extraControllerDirs), durableFiles())],
  };
}

/** The Worker as one ES module. */
export async function bundleWorker(options: BundleOptions = {}): Promise<string> {
  const result = await build(workerBuildOptions(options));
  const output = result.outputFiles?.[0];
  if (!output) throw new Error("esbuild produced no output");
  return output.text;
}

/**
 * `#relay-decided` in the relay bundle: every family's `relay-webhooks.ts` imported
 * statically (and what they import, not the rest of the family), handed to
 * `relayDecided` (ADR 0034): what `scripts/lib/relay-decided.ts` loads from the folders
 * when Node runs relay/main.ts.
 */
function relayDecidedPlugin(files: readonly string[]): Plugin {
  const contents = [
    ...files.map((file, i) => `import w${i} from ${JSON.stringify(file)};`),
    `import { relayDecided } from ${JSON.stringify(join(ROOT, "functions/relay-decided.ts"))};`,
    `export const decided = relayDecided([${files.map((_, i) => `...w${i}`).join(", ")}]);`,
  ].join("\n");
  return {
    name: "edgeloop-relay-decided",
    setup(b): void {
      b.onResolve({ filter: /^#relay-decided$/ }, (args) => ({ path: args.path, namespace: "edgeloop" }));
      b.onLoad({ filter: /.*/, namespace: "edgeloop" }, () => ({ contents, loader: "js", resolveDir: ROOT }));
    },
  };
}

/**
 * The esbuild options of the relay bundle (entry relay/main.ts): one self-contained ES
 * module for Node ≥ 22.19 (package.json's engines), what the image runs and what test/architecture.test.ts inspects.
 */
export function relayBuildOptions(outfile: string, options: { readonly minify?: boolean } = {}): BuildOptions {
  return {
    ...ESM_BUNDLE,
    entryPoints: [join(ROOT, "relay/main.ts")],
    platform: "node",
    target: "node22",
    outfile,
    minify: options.minify ?? false,
    // CommonJS dependencies (client-node's) call require(): give the ES module one.
    banner: { js: 'import { createRequire as __edgeloopCreateRequire } from "node:module"; const require = __edgeloopCreateRequire(import.meta.url);' },
    metafile: true,
    plugins: [relayDecidedPlugin(relayWebhookFiles())],
  };
}

/**
 * The relay as one self-contained ES module for Node ≥ 22.19 (what the image runs): no
 * node_modules, no TypeScript stripping at start-up, about 70 MiB less resident memory
 * than running the sources. Returns its size in bytes.
 */
export async function bundleRelay(outfile: string, options: { readonly minify?: boolean } = {}): Promise<number> {
  const result = await build(relayBuildOptions(outfile, options));
  return Object.values(result.metafile?.outputs ?? {}).reduce((sum, o) => sum + o.bytes, 0);
}
