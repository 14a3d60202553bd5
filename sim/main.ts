/** `npm run sim -- --port P --kubeconfig FILE [--nodes N|NAMES] [--node-gpus N] [--state DIR]`: the embedded cluster alone. */
import { z } from "zod";
import { chooseLogFormat, createLogger, LEVELS, LOG_FORMATS } from "../cli/log.ts";
import { cli, stringOptions } from "../cli/args.ts";
import { addressInUse, takenPort } from "../cli/ports.ts";
import { stopOnSignal } from "../cli/signals.ts";
import { NodeGpusFlag, NodesFlag, TolerationSecondsFlag } from "./flags.ts";
import { startSim } from "./index.ts";
import { clearState, StateBusyError, StateError } from "./persistence.ts";

const HELP = `usage: npm run sim -- [options]

Serves a simulated Kubernetes API on 127.0.0.1:P with the built-in controllers, and
writes a kubeconfig for kubectl to FILE. The cluster lives in memory, or in DIR with
--state (kept across restarts, as a kind cluster is). Ctrl-C stops it.

  --port P                 the API port (default 6443; 0 picks a free one)
  --kubeconfig FILE        where the kubeconfig goes (default .edgeloop/kubeconfig)
  --nodes N|NAMES          nodes created at start if missing: a count (sim-node-1..N) or
                           names separated by commas (default 3)
  --node-gpus N            nvidia.com/gpu capacity and allocatable of every node created
                           at start, for pods that request GPUs (default 0: none)
  --node-grace-seconds S   seconds without heartbeat before a node is NotReady (default 40)
  --default-not-ready-toleration-seconds S
  --default-unreachable-toleration-seconds S
                           the tolerationSeconds of the node.kubernetes.io/not-ready and
                           unreachable NoExecute tolerations pods get when they have none
                           for those taints (default 300 each, as kube-apiserver)
  --state DIR              keep the cluster in DIR: loaded at start, every change saved
  --fresh                  with --state: discard what DIR holds and start empty
  --log-level L            debug | info | warn | error (default info)
  --log-format F           json | text (default: text on a terminal, else json)`;

const Flags = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(6443),
  kubeconfig: z.string().min(1).default(".edgeloop/kubeconfig"),
  nodes: NodesFlag.default(3),
  "node-gpus": NodeGpusFlag.default(0),
  "node-grace-seconds": z.coerce.number().int().min(1).default(40),
  "default-not-ready-toleration-seconds": TolerationSecondsFlag.default(300),
  "default-unreachable-toleration-seconds": TolerationSecondsFlag.default(300),
  state: z.string().min(1).optional(),
  fresh: z.boolean().default(false),
  "log-level": z.enum(LEVELS).default("info"),
  "log-format": z.enum(LOG_FORMATS).optional(),
});

const spec = { name: "sim", help: HELP, options: { ...stringOptions(Flags), fresh: { type: "boolean" as const } }, schema: Flags };
const flags = cli(spec);
const log = createLogger(flags["log-level"], "sim", { format: chooseLogFormat(flags["log-format"], process.stdout.isTTY) });

/** A failure a person can act on: one line on stderr, exit 1. */
function exitWith(message: string): never {
  console.error(`sim: ${message}`);
  process.exit(1);
}

const ports = [{ flag: "--port", port: flags.port }];
const taken = await takenPort(ports);
if (taken) exitWith(taken);
if (flags.fresh && !flags.state) exitWith("--fresh needs --state DIR (without --state the cluster is in memory and starts empty anyway)");
try {
  if (flags.fresh && flags.state) clearState(flags.state);
  const sim = await startSim({
    port: flags.port,
    kubeconfigPath: flags.kubeconfig,
    nodes: flags.nodes,
    nodeGpus: flags["node-gpus"],
    nodeGraceSeconds: flags["node-grace-seconds"],
    defaultNotReadyTolerationSeconds: flags["default-not-ready-toleration-seconds"],
    defaultUnreachableTolerationSeconds: flags["default-unreachable-toleration-seconds"],
    log,
    ...(flags.state ? { stateDir: flags.state } : {}),
  });
  log("info", "sim ready", { url: sim.url, kubeconfig: flags.kubeconfig, ...(flags.state ? { state: flags.state } : {}), hint: `export KUBECONFIG=${flags.kubeconfig}` });
  stopOnSignal(() => sim.stop(), (signal) => log("info", "stopping", { signal }));
} catch (error) {
  const message = addressInUse(error, ports) ?? (error instanceof StateBusyError ? error.message : error instanceof StateError ? `${error.message} (--fresh discards it)` : undefined);
  if (message) exitWith(message);
  throw error;
}
