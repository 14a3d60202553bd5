/**
 * `npm run chaos`: the fault suite. Starts the local stack with a mixed workload of all
 * four systems and injects each fault mid-burst; prints a table (fault, injected at,
 * expected, happened, lost, duplicated, time to converge), the continuous count's line
 * and, last, `faults: N injected, N survived, lost: L, duplicated: D`. Exits 1 unless
 * every fault was survived. The suite lives in test/chaos/ (loaded at run time: scripts/ imports
 * nothing of test/).
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { cli } from "../cli/args.ts";

const HELP = `usage: npm run chaos -- [options]

Starts the local stack in a temporary folder: the sim, the Worker in workerd, and the
relay as its own process (the shipped bundle, leader election on, reaching the Worker
through a TCP proxy that can cut it). Creates a mixed workload: Sedna
FederatedLearningJobs and a JointInferenceService, NerveXJobs, gang-scheduled pod groups
and pods on OpenYurt-autonomous edge nodes. Then, per fault: a burst (child pods, a
coordinator and a Deployment deleted; a gang and edge pods added), the fault injected
mid-burst, healed after its length, and a wait (with a deadline) until every expected
child exists exactly once.

Faults: relay SIGKILL mid-burst and restarted; Worker down 30 s; Durable Object restart;
leader failover between two relays; watch 410 Gone storm; duplicate and reordered watch
events; the API server answering 409, 429 with Retry-After (checked: no retry sooner),
500, and slowly; the relay-Worker connection cut; the API server restarting on a store
that lost the writes it acknowledged since a gang was created (its binds); a NerveX
replicas POST whose Worker answer is dropped, during which the relay is SIGKILLed, and
whose pod creates fail part-way before the client's retry; a gang placement during which
the relay is SIGKILLed (its binds held and dropped with it), and whose Worker answers are
dropped; the relay's wall clock stepped back 120 s, then forward again (Date only, its
monotonic clock untouched); the Worker's Durable Object storage wiped (last).

Counted continuously, not only at the end: every object created in the workload's
namespace (from the watch), two live objects in one slot at any moment being a
duplicate; every replicas API reply, each URL naming a pod that exists, and no replica
created beyond what the replies asked for.

Prints a table: fault, injected at (s into the burst), expected, happened, objects lost,
objects duplicated, time to converge; then
  counted continuously: N objects created, N API replies checked, lost: L, duplicated: D
and, last:
  faults: N injected, N survived, lost: L, duplicated: D
Exits 1 unless every fault was survived. Progress goes to stderr. Takes about 5 minutes.
On a real control plane, test/cluster/chaos-restarts.test.ts restarts kube-apiserver mid gang
placement and mid replicas POST (part of npm run test:cluster).

  --only WORD   only the faults whose name contains WORD (repeatable, any case), e.g.
                  npm run chaos -- --only 429 --only sigkill
  --seed N      seed of the burst's choices and the sim's fault chances (default 1)
  --keep        keep the relay logs (their folder is printed)
  -h, --help    show this help`;

const Flags = z.object({
  seed: z.coerce.number().int("--seed needs a whole number").default(1),
  only: z.array(z.string().min(1, "--only needs a word")).default([]),
  keep: z.boolean().default(false),
});

const flags = cli({
  name: "chaos",
  help: HELP,
  options: { seed: { type: "string" }, only: { type: "string", multiple: true }, keep: { type: "boolean" } },
  schema: Flags,
});

/** What test/chaos/run.ts exports. */
interface ChaosModule {
  runChaos(options: { seed: number; only: readonly string[]; keep: boolean; progress: (line: string) => void; print: (line: string) => void }): Promise<number>;
}

const suite = (await import(pathToFileURL(resolve(import.meta.dirname, "../test/chaos/run.ts")).href)) as ChaosModule;
process.exitCode = await suite.runChaos({
  ...flags,
  progress: (line) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`),
  print: (line) => process.stdout.write(`${line}\n`),
});
