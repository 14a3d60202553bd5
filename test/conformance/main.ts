/**
 * The conformance run itself (scripts/conformance.ts starts it in a process of its own):
 * every chosen scenario against the sim and a real control plane, a line per scenario and
 * a count at the end.
 */
import { z } from "zod";
import { cli } from "../../cli/args.ts";
import { runScenario, type ScenarioResult } from "./runner.ts";
import { SCENARIOS } from "./scenarios/index.ts";
import { startTargets } from "./targets.ts";

const HELP = `usage: npm run conformance -- [--only WORD] [--slow] [--json] [--verbose]

Runs every conformance scenario (test/conformance/scenarios/) against the sim and
against a real Kubernetes control plane (npm run cluster's: kube-apiserver, its
controllers, kube-scheduler, kwok kubelets; needs Go the first time, to build them),
both started on free ports in temporary folders and stopped at the end. Each answer is
normalised (uids, times, resourceVersions, generated names, IPs, managedFields) and
compared; one line per scenario, identical or differ: <the first difference>, then

  conformance: N scenarios, M identical, K differ

Differences that are known and kept are listed in docs/sim-differences.md.

  --only WORD   run only the scenarios whose name contains WORD (case-insensitive)
  --slow        also run the slow scenarios (taint eviction: over a minute)
  --json        print one JSON object per scenario (name, identical, every difference) instead
  --verbose     print every differing step of a scenario, not only the first
  --help        show this help

Exit code: 0 when every scenario was identical, 1 when one differs, 2 on bad flags.`;

const Flags = z.object({ only: z.string().min(1, "--only needs a word").optional(), slow: z.boolean().default(false), json: z.boolean().default(false), verbose: z.boolean().default(false) });
const flags = cli({ name: "conformance", help: HELP, options: { only: { type: "string" }, slow: { type: "boolean" }, json: { type: "boolean" }, verbose: { type: "boolean" } }, schema: Flags });

const only = flags.only?.toLowerCase();
const chosen = SCENARIOS.filter((s) => (only === undefined || s.name.toLowerCase().includes(only)) && (flags.slow || !s.slow || only !== undefined));
if (chosen.length === 0) {
  console.error(`conformance: no scenario's name contains ${JSON.stringify(flags.only)}`);
  process.exit(2);
}

const targets = await startTargets((line) => console.error(`cluster: ${line}`));
// One stop, whoever asks first (a signal, a closed stdout, the end of the run); every caller waits for it.
let stopped: Promise<void> | undefined;
const stop = (): Promise<void> => (stopped ??= targets.stop());
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void stop().then(() => process.exit(130)));
// A reader that goes away (`| head`) must not leave both clusters running: stop them, then exit.
process.stdout.on("error", () => void stop().then(() => process.exit(1)));

const results: ScenarioResult[] = [];
try {
  for (const scenario of chosen) {
    if (scenario.crds) await targets.installCrds();
    const result = await runScenario(scenario, targets.sim, targets.real);
    results.push(result);
    if (flags.json) console.log(JSON.stringify(result));
    else {
      console.log(`${scenario.name}: ${result.line}`);
      if (flags.verbose) for (const step of result.steps) for (const d of step.differences) console.log(`    step ${step.step} (${step.label}) ${d.path}: sim ${JSON.stringify(d.sim)}, real ${JSON.stringify(d.real)}`);
    }
  }
} finally {
  await stop();
}
const identical = results.filter((r) => r.identical).length;
const summary = `conformance: ${results.length} scenarios, ${identical} identical, ${results.length - identical} differ`;
if (flags.json) console.error(summary);
else console.log(summary);
process.exitCode = identical === results.length ? 0 : 1;
