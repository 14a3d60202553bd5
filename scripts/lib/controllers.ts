/**
 * Where controllers live: every `controller.ts` one folder below a controllers root
 * (`functions/controllers/<name>/controller.ts`, plus extra roots such as a test's own).
 */
import { globSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Controller } from "../../functions/controller.ts";

/** The repository root (scripts/lib/../..). */
export const ROOT = resolve(import.meta.dirname, "../..");

/** The built-in controllers root. */
export const CONTROLLERS_DIR = join(ROOT, "functions/controllers");

/** Absolute paths of every controller module under the given roots, sorted per root. */
export function controllerFiles(extraDirs: readonly string[] = []): string[] {
  return [CONTROLLERS_DIR, ...extraDirs.map((dir) => resolve(dir))].flatMap((dir) =>
    globSync("*/controller.ts", { cwd: dir })
      .sort()
      .map((file) => join(dir, file)),
  );
}

/** Imports every controller's default export in Node (for scripts: CRDs, install, manifest). */
export async function loadControllers(extraDirs: readonly string[] = []): Promise<Controller[]> {
  const modules = await Promise.all(
    controllerFiles(extraDirs).map((file) => import(pathToFileURL(file).href) as Promise<{ default: Controller }>),
  );
  return modules.map((module) => module.default);
}
