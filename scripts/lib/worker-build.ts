/**
 * What `npm run build:worker` and `npm run deploy` write: the Worker bundle where
 * `wrangler.jsonc`'s `main` says (dist/worker.js) and, beside it, the configuration to
 * deploy it with (`dist/wrangler.json`: wrangler.jsonc plus every family's bindings, ADR 0022).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { bundleWorker, type BundleOptions } from "./bundle.ts";
import { ROOT } from "./controllers.ts";
import { loadFamilyBindings } from "./durable-objects.ts";
import { deployConfig, readWranglerConfig } from "./wrangler-config.ts";

/** The files written. */
export interface WorkerBuild {
  /** The bundle (what `main` names). */
  readonly script: string;
  readonly scriptFile: string;
  /** The configuration to pass to `wrangler deploy --config`. */
  readonly configFile: string;
}

/** Bundles the Worker and writes it with its deploy configuration; a configuration that disagrees with the declarations throws before anything is written. */
export async function writeWorkerBuild(options: BundleOptions = {}): Promise<WorkerBuild> {
  const base = readWranglerConfig();
  const scriptFile = resolve(ROOT, base.main);
  const configFile = join(dirname(scriptFile), "wrangler.json");
  const config = deployConfig(base, await loadFamilyBindings(), dirname(configFile));
  const script = await bundleWorker(options);
  mkdirSync(dirname(scriptFile), { recursive: true });
  writeFileSync(scriptFile, script);
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  return { script, scriptFile, configFile };
}
