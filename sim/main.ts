/** `npm run sim -- --port P --kubeconfig FILE [--nodes N]`: the embedded cluster alone. */
import { parseArgs } from "node:util";
import { z } from "zod";
import { startSim } from "./index.ts";

const HELP = `usage: npm run sim -- [--port P] [--kubeconfig FILE] [--nodes N] [--node-grace-seconds S] [--log-level L] [--help]

Serves a simulated Kubernetes API on 127.0.0.1:P (default 6443; 0 picks a free port)
with the built-in controllers, and writes a kubeconfig for kubectl to FILE (default
.edgeloop/kubeconfig). Ctrl-C stops it.

  --nodes N                nodes created at start (default 3)
  --node-grace-seconds S   seconds without heartbeat before a node is NotReady (default 40)
  --log-level L            debug | info | warn | error (default info)`;

const Flags = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(6443),
  kubeconfig: z.string().min(1).default(".edgeloop/kubeconfig"),
  nodes: z.coerce.number().int().min(0).max(5000).default(3),
  "node-grace-seconds": z.coerce.number().int().min(1).default(40),
  "log-level": z.enum(["debug", "info", "warn", "error"]).default("info"),
  help: z.boolean().optional(),
});

const LEVELS = ["debug", "info", "warn", "error"] as const;

function fail(message: string): never {
  console.error(`sim: ${message}\n\n${HELP}`);
  process.exit(2);
}

let flags: z.infer<typeof Flags>;
try {
  const { values } = parseArgs({
    options: {
      port: { type: "string" },
      kubeconfig: { type: "string" },
      nodes: { type: "string" },
      "node-grace-seconds": { type: "string" },
      "log-level": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  const parsed = Flags.safeParse(values);
  if (!parsed.success) fail(`--${parsed.error.issues[0]?.path.join(".") ?? ""}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  flags = parsed.data;
} catch (error) {
  fail((error as Error).message);
}
if (flags.help) {
  console.log(HELP);
  process.exit(0);
}
const threshold = LEVELS.indexOf(flags["log-level"]);
const log = (level: (typeof LEVELS)[number], msg: string, fields: Record<string, unknown> = {}): void => {
  if (LEVELS.indexOf(level) >= threshold) console.log(JSON.stringify({ time: new Date().toISOString(), level, component: "sim", msg, ...fields }));
};
const sim = await startSim({ port: flags.port, kubeconfigPath: flags.kubeconfig, nodes: flags.nodes, nodeGraceSeconds: flags["node-grace-seconds"], log });
log("info", "sim ready", { url: sim.url, kubeconfig: flags.kubeconfig, hint: `export KUBECONFIG=${flags.kubeconfig}` });
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    log("info", "stopping", { signal });
    void sim.stop().then(() => process.exit(0));
  });
}
