/**
 * Where controllers live: every `controller.ts` one or two folders below a controllers
 * root. A family with one controller is one folder (`functions/controllers/<name>/`); a
 * family of several keeps what they share beside them
 * (`functions/controllers/sedna/jointinference/controller.ts`). Extra roots, such as a
 * test's own, follow the same rule.
 */
import { globSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Controller, Webhook } from "../../functions/kit/controller.ts";

/** The repository root (scripts/lib/../..). */
export const ROOT = resolve(import.meta.dirname, "../..");

/** The built-in controllers root. */
export const CONTROLLERS_DIR = join(ROOT, "functions/controllers");

/** Absolute paths of every controller module under the given roots, sorted per root. */
export function controllerFiles(extraDirs: readonly string[] = []): string[] {
  return [CONTROLLERS_DIR, ...extraDirs.map((dir) => resolve(dir))].flatMap((dir) =>
    [...globSync("*/controller.ts", { cwd: dir }), ...globSync("*/*/controller.ts", { cwd: dir })]
      .sort()
      .map((file) => join(dir, file)),
  );
}

/** Absolute paths of every `name` one or two folders below the built-in controllers root (a family's top, or beside a `controller.ts`), sorted. */
function familyFiles(name: string): string[] {
  return [...globSync(`*/${name}`, { cwd: CONTROLLERS_DIR }), ...globSync(`*/*/${name}`, { cwd: CONTROLLERS_DIR })].sort().map((file) => join(CONTROLLERS_DIR, file));
}

/**
 * Absolute paths of every family's Durable Object module (`durable.ts`): the classes the
 * Worker exports besides `durable/`'s (ADR 0012), each declared in its family's
 * `bindings.ts` (ADR 0022).
 */
export function durableFiles(): string[] {
  return familyFiles("durable.ts");
}

/** Absolute paths of every family's `relay-webhooks.ts`: the webhooks the relay decides itself (ADR 0034). */
export function relayWebhookFiles(): string[] {
  return familyFiles("relay-webhooks.ts");
}

/** Imports every family's relay-decided webhooks in Node (`npm run relay`, npm start, the tests). */
export async function loadRelayWebhooks(): Promise<Webhook[]> {
  const modules = await Promise.all(relayWebhookFiles().map((file) => import(pathToFileURL(file).href) as Promise<{ default: readonly Webhook[] }>));
  return modules.flatMap((module) => [...module.default]);
}

/** Absolute paths of every family's bindings declaration (`bindings.ts`, ADR 0022). */
export function bindingsFiles(): string[] {
  return familyFiles("bindings.ts");
}

/** Imports every controller's default export in Node (for scripts: CRDs, install, manifest). */
export async function loadControllers(extraDirs: readonly string[] = []): Promise<Controller[]> {
  const modules = await Promise.all(
    controllerFiles(extraDirs).map((file) => import(pathToFileURL(file).href) as Promise<{ default: Controller }>),
  );
  return modules.map((module) => module.default);
}
