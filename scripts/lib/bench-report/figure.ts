/**
 * A benchmark figure as `npm run bench` prints it, one JSON line each, and reading a saved
 * JSON-lines file of them back (the report can be rendered again without re-running).
 */
import { z } from "zod";

/** One measured figure: the schema of a line of `npm run bench`'s output. */
export const FigureSchema = z.object({
  bench: z.string().min(1),
  metric: z.string().min(1),
  value: z.number(),
  unit: z.string(),
  /** The target, as text ("<= 50", ">= 1000"), when the issue names one. */
  target: z.string().optional(),
  /**
   * A curve this figure is a point of (`pass_ms`): figures of one bench sharing a series
   * and an `xUnit` are drawn as one line, at their `x` (100 groups, 1,000 groups...).
   */
  series: z.string().optional(),
  x: z.number().optional(),
  xUnit: z.string().optional(),
});

/** One measured figure. */
export type Figure = z.infer<typeof FigureSchema>;

/** Figures from JSON-lines text; blank lines are skipped, a bad line throws naming its number. */
export function parseFigures(text: string): Figure[] {
  const figures: Figure[] = [];
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      throw new Error(`line ${index + 1}: not JSON: ${(error as Error).message}`, { cause: error });
    }
    const parsed = FigureSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`line ${index + 1}: not a figure: ${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
    }
    figures.push(parsed.data);
  }
  return figures;
}

/** Figures as JSON-lines text (the stdout format of `npm run bench`). */
export function figuresToJsonLines(figures: readonly Figure[]): string {
  return figures.map((figure) => JSON.stringify(figure)).join("\n") + (figures.length > 0 ? "\n" : "");
}

/**
 * The figures of `saved` for benches `fresh` did not measure, then `fresh`: a run of
 * some parts (`npm run bench -- sim`) replaces those parts' figures and keeps the rest.
 */
export function mergeFigures(saved: readonly Figure[], fresh: readonly Figure[]): Figure[] {
  const measured = new Set(fresh.map((figure) => figure.bench));
  return [...saved.filter((figure) => !measured.has(figure.bench)), ...fresh];
}

/** Whether `value` meets `target` ("<= 50", ">= 1000", "< 200", "= 1"); `undefined` when there is none or it is not a comparison. */
export function meetsTarget(value: number, target: string | undefined): boolean | undefined {
  const match = target === undefined ? null : /^\s*(<=|>=|<|>|=|==)\s*(-?[\d.,_]+)\s*$/.exec(target);
  if (match === null) return undefined;
  const bound = Number((match[2] ?? "").replace(/[,_]/g, ""));
  if (!Number.isFinite(bound)) return undefined;
  switch (match[1]) {
    case "<=":
      return value <= bound;
    case ">=":
      return value >= bound;
    case "<":
      return value < bound;
    case ">":
      return value > bound;
    default:
      return value === bound;
  }
}

/** The numeric bound of a comparison target, for drawing it (`undefined` when it is none). */
export function targetBound(target: string | undefined): number | undefined {
  const match = target === undefined ? null : /^\s*(?:<=|>=|<|>|=|==)\s*(-?[\d.,_]+)\s*$/.exec(target);
  if (match === null) return undefined;
  const bound = Number((match[1] ?? "").replace(/[,_]/g, ""));
  return Number.isFinite(bound) ? bound : undefined;
}
