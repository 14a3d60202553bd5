/**
 * The wrangler configuration the Worker is deployed with (ADR 0022): `wrangler.jsonc`,
 * which binds the floor's Durable Objects and names no controller family, plus every
 * family's bindings (`bindings.ts`): their Durable Objects, the whole migration history in
 * the order wrangler applies it, and their variables' defaults (a `vars` entry of
 * wrangler.jsonc wins, so a deployment overrides them there), and `no_bundle` (the bundle
 * is uploaded as the tests ran it). Written beside the bundle.
 */
import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parse, printParseErrorCode, type ParseError } from "jsonc-parser";
import { z } from "zod";
import { FLOOR_DURABLE_OBJECTS } from "../../durable/table.ts";
import { ROOT } from "./controllers.ts";
import { allDurableObjects, familyVars, migrationHistory, type DeclaredBindings } from "./durable-objects.ts";

/** The checked-in configuration. */
export const WRANGLER_JSONC = join(ROOT, "wrangler.jsonc");

const Binding = z.object({ name: z.string(), class_name: z.string() });

/** The fields of a wrangler configuration this module reads or writes; the others pass through. */
export const WranglerConfig = z.looseObject({
  main: z.string(),
  compatibility_date: z.string(),
  durable_objects: z.looseObject({ bindings: z.array(Binding).default([]) }).default({ bindings: [] }),
  migrations: z.array(z.looseObject({ tag: z.string(), new_sqlite_classes: z.array(z.string()).default([]) })).default([]),
  vars: z.record(z.string(), z.string()).default({}),
});
export type WranglerConfig = z.infer<typeof WranglerConfig>;

/** Parses `wrangler.jsonc` (comments and trailing commas allowed); throws naming what is wrong. */
export function readWranglerConfig(file: string = WRANGLER_JSONC): WranglerConfig {
  const errors: ParseError[] = [];
  const raw: unknown = parse(readFileSync(file, "utf8"), errors, { allowTrailingComma: true });
  if (errors.length > 0) throw new Error(`${file}: ${errors.map((e) => `${printParseErrorCode(e.error)} at offset ${String(e.offset)}`).join("; ")}`);
  const parsed = WranglerConfig.safeParse(raw);
  if (!parsed.success) throw new Error(`${file}: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
  return parsed.data;
}

/** Where `config` disagrees with the floor's declarations (`durable/table.ts`): its bindings, and its migrations in order. */
export function floorProblems(config: WranglerConfig): string[] {
  const problems: string[] = [];
  const bound = config.durable_objects.bindings.map((b) => `${b.name}=${b.class_name}`).sort();
  const declared = FLOOR_DURABLE_OBJECTS.map((d) => `${d.binding}=${d.className}`).sort();
  if (bound.join() !== declared.join()) problems.push(`it binds ${bound.join(", ") || "nothing"}, durable/table.ts declares ${declared.join(", ")}`);
  const migrations = config.migrations.map((m) => `${m.tag}:${[...m.new_sqlite_classes].sort().join("+")}`);
  const history = migrationHistory(FLOOR_DURABLE_OBJECTS).map((m) => `${m.tag}:${[...m.new_sqlite_classes].sort().join("+")}`);
  if (migrations.join() !== history.join()) problems.push(`its migrations are ${migrations.join(", ") || "none"}, durable/table.ts's history is ${history.join(", ")}`);
  return problems;
}

/**
 * The configuration to deploy from `dir`: `config` (which must agree with the floor's
 * declarations) with every declared Durable Object bound, the migration history of all of
 * them, the families' variables under its own, and `main` relative to `dir`.
 */
export function deployConfig(config: WranglerConfig, families: readonly DeclaredBindings[], dir: string): WranglerConfig {
  const problems = floorProblems(config);
  if (problems.length > 0) throw new Error(`wrangler.jsonc disagrees with durable/table.ts: ${problems.join("; ")}`);
  const declarations = allDurableObjects(families);
  const { $schema: _schema, ...rest } = config;
  return {
    ...rest,
    main: relative(dir, resolve(ROOT, config.main)),
    durable_objects: { ...config.durable_objects, bindings: declarations.map((d) => ({ name: d.binding, class_name: d.className })) },
    migrations: migrationHistory(declarations).map((m) => ({ tag: m.tag, new_sqlite_classes: [...m.new_sqlite_classes] })),
    vars: { ...familyVars(families), ...config.vars },
    // Uploaded as built: the bytes deployed are the bytes the tests' workerd ran (wrangler's own bundling added 216 KB to them).
    no_bundle: true,
  };
}
