/** `npm run sim -- --port P --kubeconfig FILE [--nodes N|NAMES]`: the embedded cluster alone. */
import { z } from "zod";
import { createLogger, LEVELS } from "../cli/log.ts";
import { cli, stringOptions } from "../cli/args.ts";
import { stopOnSignal } from "../cli/signals.ts";
import { NodesFlag } from "./flags.ts";
import { startSim } from "./index.ts";

const HELP = `usage: npm run sim -- [--port P] [--kubeconfig FILE] [--nodes N|NAMES] [--node-grace-seconds S] [--log-level L] [--help]

Serves a simulated Kubernetes API on 127.0.0.1:P (default 6443; 0 picks a free port)
with the built-in controllers, and writes a kubeconfig for kubectl to FILE (default
.edgeloop/kubeconfig). Ctrl-C stops it.

  --nodes N|NAMES          nodes created at start: a count (sim-node-1..N) or
                           names separated by commas (default 3)
  --node-grace-seconds S   seconds without heartbeat before a node is NotReady (default 40)
  --log-level L            debug | info | warn | error (default info)`;

const Flags = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(6443),
  kubeconfig: z.string().min(1).default(".edgeloop/kubeconfig"),
  nodes: NodesFlag.default(3),
  "node-grace-seconds": z.coerce.number().int().min(1).default(40),
  "log-level": z.enum(LEVELS).default("info"),
});

const flags = cli({ name: "sim", help: HELP, options: stringOptions(Flags), schema: Flags });
const log = createLogger(flags["log-level"], "sim");
const sim = await startSim({ port: flags.port, kubeconfigPath: flags.kubeconfig, nodes: flags.nodes, nodeGraceSeconds: flags["node-grace-seconds"], log });
log("info", "sim ready", { url: sim.url, kubeconfig: flags.kubeconfig, hint: `export KUBECONFIG=${flags.kubeconfig}` });
stopOnSignal(() => sim.stop(), (signal) => log("info", "stopping", { signal }));
