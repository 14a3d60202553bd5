/** `npm run relay -- --worker-url URL [...]`: the relay as a process (in a cluster or against any kubeconfig). */
import { cli, fail } from "../cli/args.ts";
import { stopOnSignal } from "../cli/signals.ts";
import { RELAY_OPTIONS, RelayEnv, RelayFlags, relayOptions, splitChannelFlags } from "./ops/config.ts";
import { startRelay } from "./index.ts";
import { chooseLogFormat, createLogger } from "../cli/log.ts";
// The families' review code of the webhooks the relay decides itself (ADR 0034): bundled into the image, loaded from the controller folders by npm run relay.
// eslint-disable-next-line import-x/no-restricted-paths -- the relay's one import of family code: the pure reviews it runs, resolved by package.json imports (Node) or the bundle (image)
import { decided } from "#relay-decided";

const HELP = `usage: EDGELOOP_SECRET=... npm run relay -- --worker-url URL [options]

Watches the cluster for what the Worker's manifest asks, sends signed snapshots and
event batches to the Worker, applies the plans it returns, drains its outbox, and fronts
admission webhooks and the controllers' HTTP APIs. Logs go to stdout: readable lines on a terminal, JSON lines when
piped (--log-format), one info line per action applied. SIGTERM/Ctrl-C stops it
cleanly; SIGHUP relists every informer and resyncs every parent at once.

  --worker-url URL              the Worker (or EDGELOOP_WORKER_URL)
  --kubeconfig FILE             cluster credentials (default: the in-cluster service account)
  --concurrency N               plans applied to the API server at once (default 16)
  --worker-in-flight N          reconciles in flight at once, each parent key one at a
                                time, most of them waiting on the Worker across the
                                internet (default 256: enough for ~2,000 reconciles/s at
                                100 ms RTT; snapshots in flight stay within 8 MiB)
  --worker-keep-alive-seconds S how long an idle connection to the Worker is kept
                                (default 60: a new one costs two round trips; Cloudflare
                                keeps them 400 s; a local workerd closes its own after 5 s,
                                so use 4 against one)
  --max-rate R                  reconciles per second, all keys together (default 2000, burst 2R)
  --resync-seconds S            full resync period: every parent of every controller is
                                reconciled again (default 600; 0: off)
  --watch-silence-seconds S     a watch with no event nor bookmark for S seconds is ended and
                                resumed from its resourceVersion (default 300)
  --manifest-refresh-seconds S  how often the manifest is re-read (default 60)
  --outbox-wait-seconds S       outbox long-poll (default 20)
  --ops-port P, --ops-host H    /livez, /healthz, /readyz, /metrics (default 127.0.0.1:9090)
  --front-port P, --front-host H  TLS admission front (default host 127.0.0.1; needs the two below)
  --tls-cert FILE, --tls-key FILE PEM certificate and key of the front
  --api-port P, --api-host H    the controllers' HTTP APIs over plain HTTP, for in-cluster
                                clients without TLS (default host 127.0.0.1; off unless given)
  --{name}-port P, --{name}-host H
                                the WebSocket of edge channel {name}, as the manifest's
                                controllers declare it (e.g. --edge-port 9000 for a channel
                                named edge; default host 127.0.0.1; each channel off unless
                                its port is given; a name no controller declares is logged
                                as an error)
  --log-level L                 debug | info | warn | error (default info)
  --log-format F                json | text (default: text on a terminal, else json)
  --leader-elect                run as one of several replicas: reconcile only while holding
                                the Lease (others keep warm caches and serve admission)
  --lease-name N                the Lease (default edgeloop-relay)
  --lease-namespace NS          its namespace (default: POD_NAMESPACE, else default)
  --lease-duration-seconds S    a standby takes over S seconds after the last renewal (default 15)

Environment: EDGELOOP_SECRET (required, the HMAC key shared with the Worker); POD_NAME
and POD_NAMESPACE (the downward API) name this replica for leader election.`;

const spec = { name: "relay", help: HELP, options: RELAY_OPTIONS, schema: RelayFlags };
const channels = splitChannelFlags(process.argv.slice(2));
const flags = cli(spec, channels.rest);
if (channels.errors.length > 0) fail(spec, channels.errors.join("; "));
const env = RelayEnv.safeParse(process.env);
if (!env.success) fail(spec, env.error.issues[0]?.message ?? "bad environment");
const options = relayOptions(flags, env.data, channels.endpoints);
if ("error" in options) fail(spec, options.error);

const log = createLogger(flags["log-level"], "relay", { format: chooseLogFormat(flags["log-format"], process.stdout.isTTY) });
const relay = await startRelay({
  ...options,
  relayDecided: decided,
  log,
  // As client-go's leader election does: a replica that lost the lease exits and restarts
  // as a standby, so two replicas never reconcile at once.
  onLostLeadership: () => void relay.stop().finally(() => process.exit(1)),
});
stopOnSignal(() => relay.stop(), (signal) => log("info", "stopping", { signal }));
// SIGHUP: rebuild the caches from fresh lists and look at every parent again now.
process.on("SIGHUP", () => relay.engine.relistAll("SIGHUP"));
