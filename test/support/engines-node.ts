/**
 * The oldest Node that package.json's `engines` allows, as the `node` npm package of that
 * version, installed once into the cache folder outside the clone (as the cluster's
 * binaries are: `$EDGELOOP_CACHE_DIR`, else `~/.cache/edgeloop`), never into node_modules.
 * No test skips for want of it: an install that fails throws, saying so.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

/** `engines.node` of a package.json, as `>=X.Y.Z`. */
const Engines = z.object({ engines: z.object({ node: z.string().regex(/^>=\d+\.\d+\.\d+$/, "engines.node must be >=X.Y.Z (the oldest Node, exactly)") }) });

/** The version `>=X.Y.Z` names in the package.json at `file`. */
export function enginesMinimum(file: string): string {
  return Engines.parse(JSON.parse(readFileSync(file, "utf8"))).engines.node.slice(2);
}

/** -1, 0 or 1 as version `a` is older than, the same as or newer than `b` (X.Y.Z each). */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split(".").map(Number));
  for (let i = 0; i < 3; i++) if ((x?.[i] ?? 0) !== (y?.[i] ?? 0)) return (x?.[i] ?? 0) < (y?.[i] ?? 0) ? -1 : 1;
  return 0;
}

/**
 * The `node` binary of `version`, from `cacheDir/node-v<version>` (installed there first
 * with npm if missing: into a folder of this process, then renamed, so two test processes
 * never see half an install).
 */
export function nodeBinary(version: string, cacheDir: string): string {
  const dir = join(cacheDir, `node-v${version}`);
  const binary = join(dir, "node_modules", ".bin", "node");
  if (existsSync(binary)) return binary;
  const staging = `${dir}.${process.pid}`;
  mkdirSync(staging, { recursive: true });
  const npm = spawnSync("npm", ["install", "--prefix", staging, "--no-save", "--no-audit", "--no-fund", "--no-package-lock", `node@${version}`], { encoding: "utf8", timeout: 300_000 });
  const installed = join(staging, "node_modules", ".bin", "node");
  if (npm.status !== 0 || !existsSync(installed)) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`could not install Node ${version} (npm install node@${version} into ${staging}): ${npm.error?.message ?? `exit ${String(npm.status)}`}\n${npm.stderr}`);
  }
  if (existsSync(binary)) rmSync(staging, { recursive: true, force: true });
  else renameSync(staging, dir);
  return binary;
}
