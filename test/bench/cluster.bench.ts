/**
 * Figures on a real control plane (issue 23), beside the sim's: each scenario starts a
 * control plane of its own (`cluster/`: etcd, kube-apiserver, kube-controller-manager,
 * kube-scheduler, a kwok kubelet per node) with edgeloop installed in it as
 * `npm run test:cluster` installs it (`e2eStack` on the cluster target), the relay then
 * moved to a process of its own as on the sim's benches, and measures what its sim
 * counterpart measures, with the same code where the sim's is written against a cluster
 * (`self-heal.ts`, the Sedna jobs):
 *
 * - `sedna`: self-heal p50/p99 one at a time and at 50, 100 and 200 deletions/s;
 * - `gang`: gang placement pods/s vs the real kube-scheduler, same pods, same kwok nodes
 *   (40 by default: a kwok process each on a 2-core machine, not the sim's 1,000);
 * - `relay`: the relay's RSS with 10,000 pods in the cluster;
 * - `nervex`: the replicas API's POST p99 (target ≤ 50 ms);
 * - `autonomy`: the Pod webhook's added p99 on pod creates back to back (target ≤ 5 ms).
 *
 * Figures are of bench `cluster`, each metric named after its system (`sedna_self_heal_p99_ms`
 * beside the sim's `sedna` / `self_heal_p99_ms`): a run of this part then replaces only
 * its own figures in bench/results/. The control plane is built from Go modules: without
 * Go the part says so in one line and is not run, failing only when it was asked for
 * (`npm run bench -- cluster`). EDGELOOP_BENCH_CLUSTER_PARTS picks scenarios (default
 * sedna,gang,relay,nervex,autonomy); each scenario's file names the variables that
 * make a smaller run.
 */
import "./cluster/on-cluster.ts";
import { rmSync } from "node:fs";
import { dirname, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { Benchmark } from "../../scripts/bench.ts";
import { ROOT } from "../../scripts/lib/controllers.ts";
import { autonomy } from "./cluster/autonomy.ts";
import type { Progress, Report } from "./cluster/figures.ts";
import { gang } from "./cluster/gang.ts";
import { askedFor, goVersion, parentArgv } from "./cluster/go.ts";
import { nervex } from "./cluster/nervex.ts";
import { relayMemory } from "./cluster/relay.ts";
import { sedna } from "./cluster/sedna.ts";
import { relayBundle } from "./util.ts";

const SCENARIOS: Record<string, (report: Report, progress: Progress, script: string) => Promise<void>> = { sedna, gang, relay: relayMemory, nervex, autonomy };

/** The scenarios to run (EDGELOOP_BENCH_CLUSTER_PARTS), each checked to exist. */
function scenarios(): string[] {
  const names = (process.env.EDGELOOP_BENCH_CLUSTER_PARTS ?? Object.keys(SCENARIOS).join(",")).split(",").filter(Boolean);
  const unknown = names.filter((name) => SCENARIOS[name] === undefined);
  if (unknown.length > 0) throw new Error(`EDGELOOP_BENCH_CLUSTER_PARTS names no scenario ${unknown.join(", ")} (scenarios: ${Object.keys(SCENARIOS).join(", ")})`);
  return names;
}

const bench: Benchmark = {
  name: "cluster",
  async run(report, progress) {
    const names = scenarios();
    const go = goVersion();
    if (go === undefined) {
      const file = relative(ROOT, fileURLToPath(import.meta.url));
      process.stderr.write("bench cluster: not run: Go is missing (the real control plane is built from Go modules; install Go 1.26 or newer)\n");
      // Asked for by name: the run fails; one part among all: the others' figures stand.
      if (askedFor(file, parentArgv())) process.exit(1);
      return;
    }
    progress(`${go}; scenarios ${names.join(", ")}`);
    const script = await relayBundle();
    try {
      for (const name of names) await SCENARIOS[name]?.(report, progress, script);
    } finally {
      rmSync(dirname(script), { recursive: true, force: true });
    }
  },
};
export default bench;
