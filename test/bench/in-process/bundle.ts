/**
 * The Worker bundled for Node, for the in-process baseline (ADR 0015): the same entry,
 * controllers and virtual modules as the shipped bundle (`scripts/lib/bundle.ts`), with
 * `cloudflare:workers` replaced by a small shim (`cloudflare-workers.ts`). The rest of the
 * Worker uses only web-platform APIs Node also has (fetch's Request/Response, Web Crypto).
 */
import { build, type Plugin } from "esbuild";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { workerBuildOptions } from "../../../scripts/lib/bundle.ts";
import { bindingsFileOf, type BundledBindings } from "./bindings-file.ts";
import { allDurableObjects, familyVars, loadFamilyBindings } from "../../../scripts/lib/durable-objects.ts";

const SHIM = join(import.meta.dirname, "cloudflare-workers.ts");

/** Resolves `cloudflare:workers` to the shim. */
const cloudflareShim: Plugin = {
  name: "cloudflare-workers-shim",
  setup(b): void {
    b.onResolve({ filter: /^cloudflare:workers$/ }, () => ({ path: SHIM }));
  },
};

/**
 * Bundles the Worker (with the controllers below `extraControllerDirs` too) into a
 * temporary `.mjs` file Node can import; returns its path. The caller removes its folder
 * when it likes (it is a few hundred KiB in the system's temporary folder).
 */
export async function bundleWorkerForNode(extraControllerDirs: readonly string[] = []): Promise<string> {
  const base = workerBuildOptions({ extraControllerDirs });
  const outfile = join(mkdtempSync(join(tmpdir(), "edgeloop-in-process-")), "worker.mjs");
  await build({
    ...base,
    platform: "node",
    target: "node22",
    external: ["node:*"],
    write: true,
    outfile,
    plugins: [cloudflareShim, ...(base.plugins ?? [])],
  });
  // What the env binds is read here, in the repository: a relay bundled elsewhere that
  // runs this Worker in its process cannot find the families' declarations on disk.
  const families = await loadFamilyBindings();
  const bindings: BundledBindings = { durableObjects: allDurableObjects(families).map(({ binding, className }) => ({ binding, className })), vars: familyVars(families) };
  writeFileSync(bindingsFileOf(outfile), JSON.stringify(bindings));
  return outfile;
}
