/**
 * `npm run cluster`: a real Kubernetes control plane on this machine (etcd,
 * kube-apiserver, kube-controller-manager, kube-scheduler, a kwok kubelet per node),
 * built once from pinned Go modules. Prints `control plane ready` and the kubeconfig to
 * use; Ctrl-C stops every process it started.
 */
import { resolve } from "node:path";
import { z } from "zod";
import { cli, stringOptions } from "../cli/args.ts";
import { chooseLogFormat, createLogger, LEVELS, LOG_FORMATS } from "../cli/log.ts";
import { takenPort } from "../cli/ports.ts";
import { stopOnSignal } from "../cli/signals.ts";
import { DEFAULT_START_NODES, NodesFlag } from "../sim/flags.ts";
import { BuildError, defaultCacheDir } from "./build.ts";
import { startControlPlane } from "./index.ts";
import { COMPONENTS } from "./versions.ts";

const HELP = `usage: npm run cluster -- [options]

Starts a real Kubernetes control plane on 127.0.0.1, without Docker: etcd,
kube-apiserver (RBAC and Node authorization, the default admission plugins and
NodeRestriction, an audit log), kube-controller-manager, kube-scheduler, and a kwok
kubelet per node. The binaries are built once from these Go modules and cached:
${COMPONENTS.map((c) => `  ${c.module} ${c.version}`).join("\n")}
The first start builds them (several minutes, with progress); later ones take seconds.
Needs Go 1.26 or newer on PATH.

Then, in another terminal:

  export KUBECONFIG=$PWD/.edgeloop-cluster/kubeconfig
  kubectl get nodes
  npm start -- --kubeconfig .edgeloop-cluster/kubeconfig    # edgeloop, installed in it

  --state DIR            certificates, etcd's data, kubeconfig, logs and the audit log
                         (default .edgeloop-cluster; kept across restarts)
  --fresh                discard the state folder's cluster and start empty
  --port P               kube-apiserver's port on 127.0.0.1 (default 6443; 0 picks a free one)
  --nodes N|NAMES        nodes created if missing: a count, or names separated by commas
                         (default ${DEFAULT_START_NODES}, as npm start's sim)
  --node-grace-seconds S seconds without a heartbeat before a node is NotReady (default 40)
  --log-level L          debug | info | warn | error (default info)
  --log-format F         json | text (default: text on a terminal, JSON lines when piped)

Nodes follow the sim's conventions: annotate one sim.edgeloop.dev/heartbeat=stopped and
its kubelet stops (the node-lifecycle controller marks it NotReady); remove the
annotation and it starts again. Pods annotated sim.edgeloop.dev/run-seconds (and
exit-code) end as they do on the sim.

Environment: EDGELOOP_CACHE_DIR, where the binaries are cached (default
$XDG_CACHE_HOME/edgeloop or ~/.cache/edgeloop).`;

const Flags = z.object({
  state: z.string().min(1).default(".edgeloop-cluster"),
  fresh: z.boolean().default(false),
  port: z.coerce.number().int().min(0).max(65535).default(6443),
  nodes: NodesFlag.prefault(DEFAULT_START_NODES),
  "node-grace-seconds": z.coerce.number().int().min(5).max(3600).default(40),
  "log-level": z.enum(LEVELS).default("info"),
  "log-format": z.enum(LOG_FORMATS).optional(),
});

const spec = { name: "cluster", help: HELP, options: { ...stringOptions(Flags), fresh: { type: "boolean" as const } }, schema: Flags };
const flags = cli(spec);
const log = createLogger(flags["log-level"], "cluster", { format: chooseLogFormat(flags["log-format"], process.stdout.isTTY) });

function exitWith(message: string): never {
  console.error(`cluster: ${message}`);
  process.exit(1);
}

const taken = await takenPort([{ flag: "--port", port: flags.port }]);
if (taken) exitWith(taken);
const nodes = typeof flags.nodes === "number" ? Array.from({ length: flags.nodes }, (_, i) => `node-${i + 1}`) : flags.nodes;
const started = Date.now();
// Ctrl-C while starting (a first build takes minutes) stops what was started.
const starting = new AbortController();
let stop = async (): Promise<void> => starting.abort();
stopOnSignal(() => stop(), (signal) => log("info", "stopping", { signal }));
let controlPlane;
try {
  controlPlane = await startControlPlane({
    stateDir: resolve(flags.state),
    port: flags.port,
    nodes,
    fresh: flags.fresh,
    nodeGraceSeconds: flags["node-grace-seconds"],
    cacheDir: defaultCacheDir(process.env),
    env: process.env,
    progress: (line) => log("info", line),
    signal: starting.signal,
  });
} catch (error) {
  exitWith(error instanceof BuildError ? error.message : (error as Error).message);
}
const running = controlPlane;
log("info", "control plane ready", { seconds: Number(((Date.now() - started) / 1000).toFixed(1)), server: running.url, version: running.version, nodes: running.runningNodes().join(","), kubeconfig: running.kubeconfigPath, audit: running.auditLogPath });
if (process.stdout.isTTY) process.stdout.write(`\n  export KUBECONFIG=${running.kubeconfigPath}\n\n`);
stop = () => running.stop();
