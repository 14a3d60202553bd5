/** `npm run relay -- --worker-url URL [...]`: the relay as a process (in a cluster or against any kubeconfig). */
import { cli, fail, stopOnSignal, stringOptions } from "../scripts/lib/cli.ts";
import { RelayEnv, RelayFlags, relayOptions } from "./config.ts";
import { startRelay } from "./index.ts";
import { createLogger } from "./log.ts";

const HELP = `usage: EDGELOOP_SECRET=... npm run relay -- --worker-url URL [options]

Watches the cluster for what the Worker's manifest asks, sends signed snapshots and
event batches to the Worker, applies the plans it returns, drains its outbox, and fronts
admission webhooks. Logs are JSON lines on stdout. SIGTERM/Ctrl-C stops it cleanly.

  --worker-url URL              the Worker (or EDGELOOP_WORKER_URL)
  --kubeconfig FILE             cluster credentials (default: the in-cluster service account)
  --concurrency N               parent keys reconciled at once (default 16)
  --resync-seconds S            full resync period (default 600)
  --manifest-refresh-seconds S  how often the manifest is re-read (default 60)
  --outbox-wait-seconds S       outbox long-poll (default 20)
  --ops-port P, --ops-host H    /healthz, /readyz, /metrics (default 127.0.0.1:9090)
  --front-port P, --front-host H  TLS admission front (default host 0.0.0.0; needs the two below)
  --tls-cert FILE, --tls-key FILE PEM certificate and key of the front
  --log-level L                 debug | info | warn | error (default info)

Environment: EDGELOOP_SECRET (required, the HMAC key shared with the Worker).`;

const spec = { name: "relay", help: HELP, options: stringOptions(RelayFlags), schema: RelayFlags };
const flags = cli(spec);
const env = RelayEnv.safeParse(process.env);
if (!env.success) fail(spec, env.error.issues[0]?.message ?? "bad environment");
const options = relayOptions(flags, env.data);
if ("error" in options) fail(spec, options.error);

const log = createLogger(flags["log-level"], "relay");
const relay = await startRelay({ ...options, log });
stopOnSignal(() => relay.stop(), (signal) => log("info", "stopping", { signal }));
