/**
 * `npm start`: the whole system on this machine. The sim cluster (or a real cluster with
 * --kubeconfig), the Worker in workerd, the relay; writes .edgeloop/kubeconfig for
 * kubectl and .edgeloop/endpoints.json for tools. The cluster and the Durable Objects are
 * kept in the state folder across restarts, as a kind cluster is. Ctrl-C stops everything.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { z } from "zod";
import { DEFAULT_START_NODES, NodeGpusFlag, NodesFlag } from "../sim/flags.ts";
import { StateBusyError, StateError } from "../sim/persistence.ts";
import { chooseLogFormat, createLogger, LEVELS, LOG_FORMATS } from "../cli/log.ts";
import { cli, fail, stringOptions } from "../cli/args.ts";
import { splitPortFlags } from "../cli/port-flags.ts";
import { addressInUse, takenPort, type PortFlag } from "../cli/ports.ts";
import { stopOnSignal } from "../cli/signals.ts";
import { runInOwnProcessGroup } from "../cli/process-group.ts";
import { channelEndpoints, declaredChannels } from "./lib/channels.ts";
import { ROOT } from "./lib/controllers.ts";
import type { ClusterStack } from "./lib/stack.ts";
import { prepareState, stateFolders } from "./lib/state.ts";
import { DurableStateBusyError, stopOrphanWorkerd } from "./lib/workerd-process.ts";
import { formatLinkShape, LinkSpecError, parseLinkSpec } from "./lib/link/spec.ts";
import { linkSocketPath } from "./lib/link/control.ts";

const HELP = `usage: npm start -- [options]

Starts the local stack: the embedded cluster (sim) with its built-in controllers, the
Worker with every controller in workerd, and the relay between them. Then:

  export KUBECONFIG=$PWD/.edgeloop/kubeconfig
  kubectl apply -f functions/controllers/sedna/fixtures/federatedlearningjob_v1alpha1.yaml

The cluster and the Durable Objects are kept in the state folder across restarts (as a
kind cluster is); --fresh starts empty.

  --port P               sim API port on 127.0.0.1 (default 6443; 0 picks a free one)
  --worker-port P        Worker port on 127.0.0.1 (default 8787; 0 picks a free one)
  --ops-port P           relay /livez /healthz /readyz /metrics port (default 9090; 0 picks a free one)
  --api-port P           the controllers' HTTP APIs over plain HTTP, e.g. NerveX's replicas
                         API (default 8080; 0 picks a free one); written to endpoints.json
  --{name}-port P        the WebSocket of edge channel {name} that agents on the nodes dial
                         (every channel a controller declares is served, by default on its
                         declared port, e.g. --sedna-gm-port for Sedna's 9000; 0 picks a free
                         one); written to endpoints.json as "<endpoint>": "127.0.0.1:<port>"
  --kubeconfig FILE      run on this (real) cluster instead of the sim, as installed: with
                         FILE (an admin's) the CRDs and the relay's ServiceAccount,
                         ClusterRole and Roles are applied (what
                         install-relay renders, without its Deployment), and the relay runs
                         on this machine as that ServiceAccount (a TokenRequest token,
                         renewed), leader-elected through a Lease; the admission webhooks
                         call the local front when the API server is on loopback
  --state DIR            where the cluster, the Durable Objects, the kubeconfig and the
                         endpoints are kept (default .edgeloop)
  --fresh                discard the saved cluster and Durable Object state, start empty
  --nodes N|NAMES        sim nodes created if missing: a count, or names separated by commas
                         (default ${DEFAULT_START_NODES}: the nodes upstream examples pin pods to)
  --node-grace-seconds S sim: seconds without heartbeat before a node is NotReady (default 40)
  --node-gpus N          sim: nvidia.com/gpu on every node it creates (default 0: none)
  --link SPEC            the relay–Worker link as deployed, e.g. rtt=50ms,jitter=5ms,loss=0.5%,bandwidth=20mbit
                         (any subset; default none); npm run link changes it while the stack
                         runs (down, up, another SPEC); npm run link -- --help says more
  --log-level L          debug | info | warn | error (default info)
  --log-format F         json | text (default: text on a terminal, JSON lines when piped)

Environment: EDGELOOP_SECRET, the relay–Worker HMAC key (default: a random one per run).`;

const port = z.coerce.number().int().min(0).max(65535);
const Flags = z.object({
  port: port.default(6443),
  "worker-port": port.default(8787),
  "ops-port": port.default(9090),
  "api-port": port.default(8080),
  kubeconfig: z.string().min(1).optional(),
  state: z.string().min(1).default(".edgeloop"),
  fresh: z.boolean().default(false),
  nodes: NodesFlag.prefault(DEFAULT_START_NODES),
  "node-grace-seconds": z.coerce.number().int().min(1).default(40),
  "node-gpus": NodeGpusFlag.default(0),
  link: z.string().default("none").transform((text, ctx) => {
    try {
      return parseLinkSpec(text);
    } catch (error) {
      if (!(error instanceof LinkSpecError)) throw error;
      ctx.addIssue({ code: "custom", message: error.message });
      return z.NEVER;
    }
  }),
  "log-level": z.enum(LEVELS).default("info"),
  "log-format": z.enum(LOG_FORMATS).optional(),
});
const Env = z.object({ EDGELOOP_SECRET: z.string().min(16, "EDGELOOP_SECRET must be at least 16 characters").optional() });

// Ctrl-C reaches this process alone, not workerd: the stack stops the relay first, then the Worker.
await runInOwnProcessGroup(process.env);

const spec = { name: "start", help: HELP, options: { ...stringOptions(Flags), fresh: { type: "boolean" as const } }, schema: Flags };
const named = splitPortFlags(process.argv.slice(2), new Set(Object.keys(spec.options)));
const flags = cli(spec, named.rest);
const channelSpecs = await declaredChannels();
const channelFlagErrors = [
  ...named.errors,
  ...Object.entries(named.endpoints).flatMap(([name, given]) =>
    !channelSpecs.some((c) => c.name === name)
      ? [`--${name}-port: no controller declares a channel ${name} (declared: ${channelSpecs.map((c) => c.name).join(", ") || "none"})`]
      : given.host !== undefined
        ? [`--${name}-host: npm start serves every channel on 127.0.0.1 (the relay's own --${name}-host is for a cluster)`]
        : [],
  ),
];
if (channelFlagErrors.length > 0) fail(spec, channelFlagErrors.join("; "));
/** Each declared channel's port: its flag's, else the one it declares. */
const channelPorts = Object.fromEntries(channelSpecs.map((c) => [c.name, named.endpoints[c.name]?.port ?? c.port]));
const env = Env.safeParse(process.env);
if (!env.success) exitWith(env.error.issues[0]?.message ?? "bad environment", 2);

/** A failure a person can act on: one line on stderr, no stack trace. */
function exitWith(message: string, code = 1): never {
  console.error(`start: ${message}`);
  process.exit(code);
}

const format = chooseLogFormat(flags["log-format"], process.stdout.isTTY);
const logger = (component: string): ReturnType<typeof createLogger> => createLogger(flags["log-level"], component, { format });
const log = logger("start");
const onSim = flags.kubeconfig === undefined;
const ports: PortFlag[] = [
  ...(onSim ? [{ flag: "--port", port: flags.port }] : []),
  { flag: "--worker-port", port: flags["worker-port"] },
  { flag: "--ops-port", port: flags["ops-port"] },
  { flag: "--api-port", port: flags["api-port"] },
  ...Object.entries(channelPorts).map(([name, port]) => ({ flag: `--${name}-port`, port })),
];
// A workerd left on this state by an npm start killed before it could stop it holds the Worker port: stopped first.
const orphan = await stopOrphanWorkerd(stateFolders(resolve(ROOT, flags.state)).durableObjects);
if (orphan !== undefined) log("warn", `stopped workerd (pid ${orphan}) left running on ${flags.state} by an npm start that was killed`);
const taken = await takenPort(ports);
if (taken) exitWith(taken);

// Everything this process writes (the kubeconfig, the cluster's journal, workerd's Durable Object files) is the owner's only.
process.umask(0o077);
const state = resolve(ROOT, flags.state);
const folders = stateFolders(state);
mkdirSync(state, { recursive: true });
try {
  for (const note of prepareState(folders, { fresh: flags.fresh, sim: onSim })) log(note.level, note.message);
} catch (error) {
  if (error instanceof StateBusyError) exitWith(`${flags.state} is in use by another npm start (pid ${error.pid}): stop it, or pass --state DIR to run a second one`);
  throw error;
}

// Loaded only now: the stack pulls in workerd, the bundler and the relay, too slow to load just to refuse a taken port.
const { startOnCluster, startStack } = await import("./lib/stack.ts");
const { InstallError } = await import("./lib/install/local-relay.ts");
const common = {
  workerPort: flags["worker-port"],
  opsPort: flags["ops-port"],
  apiPort: flags["api-port"],
  channelPorts,
  persistDir: folders.durableObjects,
  // Malformed Content-Length / Transfer-Encoding: a 400 from a Node front, where workerd answers a 500.
  guardFraming: true,
  // Always shaped (none by default), so that npm run link can change the link of a running stack.
  link: flags.link,
  linkControlSocket: linkSocketPath(folders.root),
  log: logger("relay"),
  progress: (step: string): void => log("info", step),
  ...(env.data.EDGELOOP_SECRET ? { secret: env.data.EDGELOOP_SECRET } : {}),
};
const started = Date.now();
const kubeconfigPath = flags.kubeconfig ? resolve(flags.kubeconfig) : join(state, "kubeconfig");
let stack: ClusterStack & { sim?: { url: string } };
try {
  stack = onSim
    ? await startStack({ ...common, kubeconfigPath, simPort: flags.port, nodes: flags.nodes, nodeGraceSeconds: flags["node-grace-seconds"], nodeGpus: flags["node-gpus"], clusterStateDir: folders.cluster, simLog: logger("sim") })
    : await startOnCluster({ ...common, kubeconfigPath });
} catch (error) {
  const message =
    addressInUse(error, ports) ??
    (error instanceof StateBusyError || error instanceof DurableStateBusyError ? error.message : error instanceof StateError ? `${error.message} (--fresh discards the saved state)` : error instanceof InstallError ? `installing in the cluster of ${flags.kubeconfig ?? ""}: ${error.message}` : undefined);
  if (message) exitWith(message);
  throw error;
}
const endpoints = {
  apiServer: stack.sim?.url ?? "(from the kubeconfig)",
  kubeconfig: kubeconfigPath,
  worker: stack.worker.url,
  relay: stack.relay.opsUrl,
  // The relay reaches the Worker across this link (npm run link shows and changes it).
  link: { spec: formatLinkShape(flags.link), control: linkSocketPath(folders.root) },
  ...(stack.front ? { front: stack.front.url, frontCa: join(state, "front-ca.pem") } : {}),
  ...(stack.installed ? { relayUser: stack.installed.user, lease: `${stack.installed.lease.namespace}/${stack.installed.lease.name}`, relayIdentity: stack.installed.identity } : {}),
  // Each controller API by name (NerveX's `replicas`), over plain HTTP as in-cluster clients call it.
  apis: Object.fromEntries(stack.relay.engine.manifest.controllers.flatMap((c) => c.apis).map((api) => [api.name, stack.apiUrl])),
  // Each edge channel under its endpoint key, as `host:port`: the manager address a peer on this machine dials (Sedna's `sednaGM`: an LC's GM_ADDRESS).
  ...channelEndpoints(channelSpecs, stack.channels),
};
if (stack.front) writeFileSync(join(state, "front-ca.pem"), stack.front.caPem);
writeFileSync(join(state, "endpoints.json"), `${JSON.stringify(endpoints, null, 2)}\n`);
const seconds = (Date.now() - started) / 1000;
if (format === "json") log("info", "edgeloop ready", { ...endpoints, seconds, state, hint: `export KUBECONFIG=${kubeconfigPath}` });
else process.stdout.write(readyText(endpoints, seconds));
stopOnSignal(() => stack.stop(), (signal) => log("info", "stopping", { signal }));

/** What a person reads once everything runs: where each piece is, and the one command to paste. */
function readyText(e: typeof endpoints, took: number): string {
  const show = (path: string): string => (path.startsWith(ROOT) ? relative(process.cwd(), path) || "." : path);
  const lines = [
    `edgeloop ready (${took.toFixed(1)} s)`,
    `  cluster   ${e.apiServer}${onSim ? `   state kept in ${show(state)} (--fresh starts empty)` : ""}`,
    `  worker    ${e.worker}`,
    `  link      ${e.link.spec}   (the relay reaches the Worker across it; npm run link -- down | up | SPEC)`,
    `  relay     ${e.relay}/metrics`,
    ...(e.relayUser ? [`  as        ${e.relayUser}   leader election: Lease ${e.lease ?? ""} (this relay: ${e.relayIdentity ?? ""})`] : []),
    ...(e.front ? [`  front     ${e.front}   CA ${show(e.frontCa ?? "")}`] : []),
    ...Object.entries(e.apis).map(([name, url]) => `  ${`${name} API`.padEnd(9)} ${url}`),
    ...channelSpecs.map((c) => `  ${c.name.padEnd(9)} ws://${stack.channels[c.name] ?? ""}/   (endpoints.json: ${c.endpoint})`),
    "",
    `  export KUBECONFIG=${e.kubeconfig}`,
    "",
  ];
  return `${lines.join("\n")}\n`;
}
