/**
 * Every Durable Object of the Worker, the floor's (`durable/table.ts`) and each controller
 * family's (its `bindings.ts`), checked, and the migration history they make (ADR 0022):
 * what the deploy configuration, miniflare's options and the in-process Worker derive
 * their bindings from.
 */
import { relative } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import type { DurableObjectDeclaration } from "../../durable/declaration.ts";
import { FLOOR_DURABLE_OBJECTS } from "../../durable/table.ts";
import { bindingsFiles, ROOT } from "./controllers.ts";

/**
 * The tags deployed before tags were dated, in the order wrangler applied them, with how
 * many classes each created: history, so none is added and none gains a class (a class
 * added under an applied tag would never be created).
 */
const NUMBERED_TAGS: ReadonlyMap<string, number> = new Map([
  ["v1", 2],
  ["v2", 1],
  ["v3", 1],
]);

/** `YYYY-MM-DD-name`: the day the migration was written, then a lower-case name. */
const DATED_TAG = /^(\d{4}-\d{2}-\d{2})-[a-z0-9]+(?:-[a-z0-9]+)*$/;

const UPPER_NAME = /^[A-Z][A-Z0-9_]*$/;

const Declaration = z.object({
  binding: z.string().regex(UPPER_NAME, "a binding is upper case (letters, digits, _)"),
  className: z.string().regex(/^[A-Za-z_$][\w$]*$/, "a class name is an identifier"),
  migration: z.string(),
});

const FamilyBindingsFile = z.object({
  durableObjects: z.array(Declaration),
  vars: z.record(z.string().regex(UPPER_NAME, "a variable name is upper case (letters, digits, _)"), z.string()).default({}),
});

/** A family's bindings as its `bindings.ts` declares them. */
export interface DeclaredBindings {
  /** The file, relative to the repository root. */
  readonly file: string;
  readonly durableObjects: readonly DurableObjectDeclaration[];
  readonly vars: Readonly<Record<string, string>>;
}

/** A wrangler migration: the SQLite-backed classes one tag creates. */
export interface Migration {
  readonly tag: string;
  readonly new_sqlite_classes: readonly string[];
}

/** Imports every family's `bindings.ts` and parses its default export; throws naming the file that is wrong. */
export async function loadFamilyBindings(files: readonly string[] = bindingsFiles()): Promise<DeclaredBindings[]> {
  return Promise.all(
    files.map(async (path) => {
      const file = relative(ROOT, path);
      const module = (await import(pathToFileURL(path).href)) as { default?: unknown };
      const parsed = FamilyBindingsFile.safeParse(module.default);
      if (!parsed.success) throw new Error(`${file}: the default export is not a FamilyBindings: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
      return { file, ...parsed.data };
    }),
  );
}

/** Every Durable Object the Worker binds: the floor's, then each family's (files in path order). */
export function allDurableObjects(families: readonly DeclaredBindings[]): DurableObjectDeclaration[] {
  return [...FLOOR_DURABLE_OBJECTS, ...families.flatMap((family) => family.durableObjects)];
}

/** Whether `tag` is dated on a real day. */
function isDated(tag: string): boolean {
  const day = DATED_TAG.exec(tag)?.[1];
  return day !== undefined && !Number.isNaN(Date.parse(day)) && new Date(day).toISOString().startsWith(day);
}

/** The order wrangler applies tags in: the numbered ones first, in their order, then the dated ones by date (and name). */
export function compareTags(a: string, b: string): number {
  const numbered = [...NUMBERED_TAGS.keys()];
  const rank = (tag: string): number => (NUMBERED_TAGS.has(tag) ? numbered.indexOf(tag) : numbered.length);
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** The declarations by migration tag, in declaration order. */
function byTag(declarations: readonly DurableObjectDeclaration[]): Map<string, DurableObjectDeclaration[]> {
  const tags = new Map<string, DurableObjectDeclaration[]>();
  for (const declaration of declarations) tags.set(declaration.migration, [...(tags.get(declaration.migration) ?? []), declaration]);
  return tags;
}

/** Everything wrong with a set of declarations: a binding or class declared twice, a tag neither numbered nor dated, a tag that gains a class. */
export function declarationProblems(declarations: readonly DurableObjectDeclaration[]): string[] {
  const problems: string[] = [];
  const twice = (what: string, values: readonly string[]): void => {
    for (const value of new Set(values.filter((v, i) => values.indexOf(v) !== i))) problems.push(`${what} ${value} is declared twice`);
  };
  twice("binding", declarations.map((d) => d.binding));
  twice("class", declarations.map((d) => d.className));
  for (const [tag, classes] of byTag(declarations)) {
    const names = classes.map((d) => d.className).join(", ");
    const numbered = NUMBERED_TAGS.get(tag);
    if (numbered === undefined && !isDated(tag)) problems.push(`migration ${tag} (${names}) is not dated: tags are YYYY-MM-DD-name, the day they are written (ADR 0022)`);
    else if (numbered !== undefined && classes.length > numbered) problems.push(`migration ${tag} was applied with ${String(numbered)} class(es) and cannot gain one (${names}): give the new class a dated tag (ADR 0022)`);
    else if (numbered === undefined && classes.length > 1) problems.push(`migration ${tag} creates several classes (${names}): one dated tag per class`);
  }
  return problems;
}

/** The migrations the declarations make, in the order wrangler applies them; throws listing every problem. */
export function migrationHistory(declarations: readonly DurableObjectDeclaration[]): Migration[] {
  const problems = declarationProblems(declarations);
  if (problems.length > 0) throw new Error(`the Durable Object declarations disagree: ${problems.join("; ")}`);
  return [...byTag(declarations)]
    .sort(([a], [b]) => compareTags(a, b))
    .map(([tag, classes]) => ({ tag, new_sqlite_classes: classes.map((d) => d.className) }));
}

/** The families' variables with their defaults; throws when two families declare one. */
export function familyVars(families: readonly DeclaredBindings[]): Record<string, string> {
  const vars: Record<string, string> = {};
  const owner = new Map<string, string>();
  for (const family of families) {
    for (const [name, value] of Object.entries(family.vars)) {
      const first = owner.get(name);
      if (first !== undefined) throw new Error(`variable ${name} is declared by both ${first} and ${family.file}`);
      owner.set(name, family.file);
      vars[name] = value;
    }
  }
  return vars;
}
