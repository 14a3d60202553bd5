/**
 * A relay process for `npm run bench -- hop` (ADR 0015): the relay of relay/main.ts, with
 * one more flag, `--in-process-worker FILE`, that makes it the in-process baseline: the
 * Worker bundled for Node (`bundle.ts`) answers its requests inside this process. Without
 * it the relay calls the Worker at `--worker-url` over HTTP, as relay/main.ts does; the
 * benchmark runs this one file in both modes, so they differ only in the transport.
 */
import { cli, fail } from "../../../cli/args.ts";
import { chooseLogFormat, createLogger } from "../../../cli/log.ts";
import { stopOnSignal } from "../../../cli/signals.ts";
import { RELAY_OPTIONS, RelayEnv, RelayFlags, relayOptions } from "../../../relay/ops/config.ts";
import { startRelay } from "../../../relay/index.ts";
import { startInProcessWorker, type InProcessWorker } from "./worker.ts";

const IN_PROCESS_FLAG = "--in-process-worker";
const STORAGE_FLAG = "--in-process-storage";
/** A placeholder origin: the in-process transport ignores it, the relay logs it. */
const IN_PROCESS_URL = "http://in-process.invalid";

const HELP = `usage: EDGELOOP_SECRET=... node test/bench/in-process/relay-main.ts [--in-process-worker FILE [--in-process-storage DIR]] RELAY-FLAGS...

The relay, for the hop benchmark. With --in-process-worker FILE (the Worker bundled for
Node by test/bench/in-process/bundle.ts) the Worker's app answers inside this process
and --worker-url is not needed; without it, this is the relay of npm run relay.

  --in-process-worker FILE   run the Worker's app in this process (the baseline)
  --in-process-storage DIR   keep its Durable Objects' state in files below DIR, each
                             commit synced to disk (default: in memory)

RELAY-FLAGS are those of npm run relay -- --help:
  ${Object.keys(RELAY_OPTIONS).map((flag) => `--${flag}`).join(" ")}`;

const spec = { name: "relay-main", help: HELP, options: RELAY_OPTIONS, schema: RelayFlags };

/** Takes `flag VALUE` out of `argv`: the value (undefined when the flag is absent) and the other arguments. */
function take(argv: readonly string[], flag: string): { value: string | undefined; rest: string[] } {
  const at = argv.indexOf(flag);
  if (at < 0) return { value: undefined, rest: [...argv] };
  const value = argv[at + 1];
  if (value === undefined || value.startsWith("-")) fail(spec, `${flag} needs a value`);
  return { value, rest: [...argv.slice(0, at), ...argv.slice(at + 2)] };
}

const { value: modulePath, rest: afterModule } = take(process.argv.slice(2), IN_PROCESS_FLAG);
const { value: storageDir, rest } = take(afterModule, STORAGE_FLAG);
if (storageDir !== undefined && modulePath === undefined) fail(spec, `${STORAGE_FLAG} needs ${IN_PROCESS_FLAG}`);
const flags = cli(spec, modulePath !== undefined && !rest.includes("--worker-url") ? [...rest, "--worker-url", IN_PROCESS_URL] : rest);
const env = RelayEnv.safeParse(process.env);
if (!env.success) fail(spec, env.error.issues[0]?.message ?? "bad environment");
const options = relayOptions(flags, env.data);
if ("error" in options) fail(spec, options.error);

const log = createLogger(flags["log-level"], "relay", { format: chooseLogFormat(flags["log-format"], process.stdout.isTTY) });
let worker: InProcessWorker | undefined;
if (modulePath !== undefined) {
  worker = await startInProcessWorker({
    modulePath,
    secret: env.data.EDGELOOP_SECRET,
    ...(storageDir === undefined ? {} : { storageDir }),
    ...(flags["api-port"] !== undefined ? { apiAddress: `${flags["api-host"]}:${flags["api-port"]}` } : {}),
  });
  log("info", "the Worker runs in this process (in-process baseline)", { module: modulePath, storage: storageDir ?? "memory" });
}
const relay = await startRelay({ ...options, log, ...(worker ? { transport: worker.transport } : {}) });
stopOnSignal(
  async () => {
    await relay.stop();
    worker?.close();
  },
  (signal) => log("info", "stopping", { signal }),
);
process.on("SIGHUP", () => relay.engine.relistAll("SIGHUP"));
