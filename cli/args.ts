/**
 * Command-line flags for every entry point (sim, relay, scripts): parsed by `node:util`
 * parseArgs then validated by one zod schema, `--help`, exit code 2 with the field named
 * on bad input.
 */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import type { z } from "zod";

/** What a command accepts. */
export interface CliSpec<S extends z.ZodType> {
  /** Shown before error messages, e.g. `relay`. */
  readonly name: string;
  /** The full `--help` text. */
  readonly help: string;
  /** parseArgs option shapes (every value a string or boolean, zod converts). */
  readonly options: ParseArgsOptionsConfig;
  /** Validates and defaults the parsed values. */
  readonly schema: S;
}

/** The outcome of parsing: flags, help requested, or an error naming the flag. */
export type CliResult<T> = { readonly kind: "flags"; readonly flags: T } | { readonly kind: "help" } | { readonly kind: "error"; readonly message: string };

/** Parses `argv` without side effects (unit-testable). */
export function parseCli<S extends z.ZodType>(spec: CliSpec<S>, argv: readonly string[]): CliResult<z.infer<S>> {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ args: [...argv], options: { ...spec.options, help: { type: "boolean", short: "h" } }, strict: true, allowPositionals: false }).values;
  } catch (error) {
    return { kind: "error", message: (error as Error).message };
  }
  if (values.help === true) return { kind: "help" };
  delete values.help;
  const parsed = spec.schema.safeParse(values);
  if (parsed.success) return { kind: "flags", flags: parsed.data };
  const issue = parsed.error.issues[0];
  const flag = issue?.path.length ? `--${issue.path.join(".")}: ` : "";
  return { kind: "error", message: `${flag}${issue?.message ?? "invalid arguments"}` };
}

/** Parses the process's arguments; prints help (exit 0) or the error and help (exit 2). */
export function cli<S extends z.ZodType>(spec: CliSpec<S>, argv: readonly string[] = process.argv.slice(2)): z.infer<S> {
  const result = parseCli(spec, argv);
  if (result.kind === "flags") return result.flags;
  if (result.kind === "help") {
    console.log(spec.help);
    // A flag the help does not name is a bug of this command: say so, so that tests catch it.
    const missing = undocumentedFlags(spec);
    if (missing.length > 0) console.error(`${spec.name}: --help does not describe ${missing.map((f) => `--${f}`).join(", ")}`);
    process.exit(missing.length > 0 ? 1 : 0);
  }
  return fail(spec, result.message);
}

/** The flags of `spec` that its help text never mentions (`--name`). */
export function undocumentedFlags(spec: Pick<CliSpec<z.ZodType>, "help" | "options">): string[] {
  return Object.keys(spec.options).filter((name) => !new RegExp(`--${name}(?![\\w-])`).test(spec.help));
}

/** Prints `name: message` and the help, exits 2. */
export function fail(spec: Pick<CliSpec<z.ZodType>, "name" | "help">, message: string): never {
  console.error(`${spec.name}: ${message}\n\n${spec.help}`);
  process.exit(2);
}

/** parseArgs shapes for a flat zod object whose every flag takes a string value. */
export function stringOptions(schema: { readonly shape: Record<string, unknown> }): ParseArgsOptionsConfig {
  return Object.fromEntries(Object.keys(schema.shape).map((name) => [name, { type: "string" as const }]));
}
