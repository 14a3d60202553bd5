/**
 * `node scripts/bench-readme.ts`: rewrites README.md's "Figures" section (between
 * `<!-- bench:start -->` and `<!-- bench:end -->`) from the saved results in bench/results/,
 * without running any benchmark (`npm run bench -- --readme` does the same after a run).
 */
import path from "node:path";
import { z } from "zod";
import { cli, stringOptions } from "../cli/args.ts";
import { ROOT } from "./lib/controllers.ts";
import { updateReadme } from "./lib/bench-report/write.ts";

const Flags = z.object({
  results: z.string().min(1).default("bench/results"),
  readme: z.string().min(1).default("README.md"),
});

const flags = cli({
  name: "bench-readme",
  help: `usage: node scripts/bench-readme.ts [--help] [--results DIR] [--readme FILE]

Rewrites the "Figures" section of the README (between <!-- bench:start --> and
<!-- bench:end -->) from the figures and machine saved by npm run bench: the figures that
have a target, a link to every figure and chart, and the machine they came from.

  --results DIR   the results folder (default bench/results)
  --readme FILE   the README to rewrite (default README.md)`,
  options: stringOptions(Flags),
  schema: Flags,
});

updateReadme(path.resolve(ROOT, flags.readme), path.resolve(ROOT, flags.results));
process.stderr.write(`bench-readme: rewrote the Figures section of ${flags.readme} from ${flags.results}/\n`);
