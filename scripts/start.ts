/**
 * `npm start`: the whole system on this machine. The sim cluster (or a real cluster with
 * --kubeconfig), the Worker in workerd, the relay; writes .edgeloop/kubeconfig for
 * kubectl and .edgeloop/endpoints.json for tools. Ctrl-C stops everything.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { DEFAULT_START_NODES, NodesFlag } from "../sim/flags.ts";
import { createLogger, LEVELS } from "../cli/log.ts";
import { cli, stringOptions } from "../cli/args.ts";
import { stopOnSignal } from "../cli/signals.ts";
import { ROOT } from "./lib/controllers.ts";
import { startOnCluster, startStack } from "./lib/stack.ts";

const HELP = `usage: npm start -- [options]

Starts the local stack: the embedded cluster (sim) with its built-in controllers, the
Worker with every controller in workerd, and the relay between them. Then:

  export KUBECONFIG=$PWD/.edgeloop/kubeconfig
  kubectl apply -f functions/controllers/sedna/fixtures/federatedlearningjob_v1alpha1.yaml

  --port P               sim API port on 127.0.0.1 (default 6443; 0 picks a free one)
  --worker-port P        Worker port on 127.0.0.1 (default 8787; 0 picks a free one)
  --ops-port P           relay /healthz /readyz /metrics port (default 9090)
  --kubeconfig FILE      use this (real) cluster instead of the sim; CRDs are applied to it
  --state DIR            where the kubeconfig, endpoints and Durable Object state go (default .edgeloop)
  --nodes N|NAMES        sim nodes: a count, or names separated by commas
                         (default ${DEFAULT_START_NODES}: the nodes upstream examples pin pods to)
  --node-grace-seconds S sim: seconds without heartbeat before a node is NotReady (default 40)
  --log-level L          debug | info | warn | error (default info)

Environment: EDGELOOP_SECRET, the relay–Worker HMAC key (default: a random one per run).`;

const port = z.coerce.number().int().min(0).max(65535);
const Flags = z.object({
  port: port.default(6443),
  "worker-port": port.default(8787),
  "ops-port": port.default(9090),
  kubeconfig: z.string().min(1).optional(),
  state: z.string().min(1).default(".edgeloop"),
  nodes: NodesFlag.prefault(DEFAULT_START_NODES),
  "node-grace-seconds": z.coerce.number().int().min(1).default(40),
  "log-level": z.enum(LEVELS).default("info"),
});
const Env = z.object({ EDGELOOP_SECRET: z.string().min(16, "EDGELOOP_SECRET must be at least 16 characters").optional() });

const spec = { name: "start", help: HELP, options: stringOptions(Flags), schema: Flags };
const flags = cli(spec);
const env = Env.safeParse(process.env);
if (!env.success) {
  console.error(`start: ${env.error.issues[0]?.message ?? "bad environment"}`);
  process.exit(2);
}

const state = resolve(ROOT, flags.state);
mkdirSync(state, { recursive: true });
const log = createLogger(flags["log-level"], "start");
const progress = (step: string): void => log("info", step);
const common = {
  workerPort: flags["worker-port"],
  opsPort: flags["ops-port"],
  persistDir: join(state, "durable-objects"),
  log: createLogger(flags["log-level"], "relay"),
  progress,
  ...(env.data.EDGELOOP_SECRET ? { secret: env.data.EDGELOOP_SECRET } : {}),
};
const started = Date.now();
const kubeconfigPath = flags.kubeconfig ? resolve(flags.kubeconfig) : join(state, "kubeconfig");
const sim = flags.kubeconfig ? undefined : await startStack({ ...common, kubeconfigPath, simPort: flags.port, nodes: flags.nodes, nodeGraceSeconds: flags["node-grace-seconds"] });
const stack = sim ?? (await startOnCluster({ ...common, kubeconfigPath }));
const endpoints = {
  apiServer: sim?.sim.url ?? "(from the kubeconfig)",
  kubeconfig: kubeconfigPath,
  worker: stack.worker.url,
  relay: stack.relay.opsUrl,
  ...(stack.front ? { front: stack.front.url, frontCa: join(state, "front-ca.pem") } : {}),
};
if (stack.front) writeFileSync(join(state, "front-ca.pem"), stack.front.caPem);
writeFileSync(join(state, "endpoints.json"), `${JSON.stringify(endpoints, null, 2)}\n`);
log("info", "edgeloop ready", { ...endpoints, seconds: (Date.now() - started) / 1000, hint: `export KUBECONFIG=${kubeconfigPath}` });
stopOnSignal(() => stack.stop(), (signal) => log("info", "stopping", { signal }));
