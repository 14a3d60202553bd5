/**
 * Flags named after something only known later (an edge channel the Worker's manifest
 * declares): `--{name}-port P` and `--{name}-host H` for any `name` that is not a flag of
 * the command. They are split out of argv before parseArgs (which is strict) and checked
 * here; the caller matches the names against what it learns later.
 */

/** A named endpoint's port and host, as given (either may be missing). */
export interface NamedEndpointFlags {
  readonly port?: number;
  readonly host?: string;
}

/** argv without the named endpoint flags, those flags by name, and what was wrong with them. */
export interface SplitPortFlags {
  readonly rest: string[];
  readonly endpoints: Record<string, NamedEndpointFlags>;
  readonly errors: string[];
}

const NAMED = /^--([a-z](?:[a-z0-9-]*[a-z0-9])?)-(port|host)(?:=(.*))?$/s;

/**
 * Splits `--{name}-port P`, `--{name}-port=P`, `--{name}-host H` and `--{name}-host=H` out
 * of `argv`, for every `name` such that `{name}-port` / `{name}-host` is not in `known`
 * (the command's own flags, e.g. `api-port`). A port is an integer 0–65535, a host a
 * non-empty string; a flag given twice keeps its last value, as parseArgs does.
 */
export function splitPortFlags(argv: readonly string[], known: ReadonlySet<string>): SplitPortFlags {
  const rest: string[] = [];
  const endpoints: Record<string, { port?: number; host?: string }> = {};
  const errors: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const match = NAMED.exec(arg);
    const [, name = "", which = "", inline] = match ?? [];
    if (!match || known.has(`${name}-${which}`)) {
      rest.push(arg);
      continue;
    }
    const value = inline ?? argv[++i];
    const flag = `--${name}-${which}`;
    if (value === undefined || (inline === undefined && value.startsWith("--"))) {
      errors.push(`${flag}: expected a value`);
      if (value !== undefined) i--;
      continue;
    }
    if (which === "host") {
      if (value.length === 0) errors.push(`${flag}: expected a host`);
      else endpoints[name] = { ...endpoints[name], host: value };
    } else if (/^\d{1,5}$/.test(value) && Number(value) <= 65535) endpoints[name] = { ...endpoints[name], port: Number(value) };
    else errors.push(`${flag}: expected a port (0-65535), got ${JSON.stringify(value)}`);
  }
  return { rest, endpoints, errors };
}
