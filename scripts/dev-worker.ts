/** `npm run dev:worker -- --port P`: the Worker in workerd on 127.0.0.1:P. */
import { parseArgs } from "node:util";
import { z } from "zod";
import { startWorker } from "./lib/worker.ts";

const HELP = `usage: EDGELOOP_SECRET=... npm run dev:worker -- [--port P] [--persist DIR] [--controllers DIR]... [--help]

Serves the Worker (every controller folder) in workerd on 127.0.0.1:P (default 8787),
with Durable Objects in memory, or in DIR with --persist. The HMAC secret comes from
the environment variable EDGELOOP_SECRET (at least 16 characters). Ctrl-C stops it.`;

const Flags = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(8787),
  persist: z.string().min(1).optional(),
  controllers: z.array(z.string().min(1)).default([]),
  help: z.boolean().optional(),
});
const Secret = z.string({ error: "EDGELOOP_SECRET is not set" }).min(16, "EDGELOOP_SECRET must be at least 16 characters");

function fail(message: string): never {
  console.error(`dev:worker: ${message}\n\n${HELP}`);
  process.exit(2);
}

let flags: z.infer<typeof Flags>;
try {
  const { values } = parseArgs({
    options: { port: { type: "string" }, persist: { type: "string" }, controllers: { type: "string", multiple: true }, help: { type: "boolean", short: "h" } },
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
const secret = Secret.safeParse(process.env.EDGELOOP_SECRET);
if (!secret.success) fail(secret.error.issues[0]?.message ?? "bad EDGELOOP_SECRET");

const worker = await startWorker({
  secret: secret.data,
  port: flags.port,
  extraControllerDirs: flags.controllers,
  ...(flags.persist ? { persistDir: flags.persist } : {}),
});
console.log(JSON.stringify({ level: "info", msg: "worker ready", url: worker.url }));
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void worker.stop().then(() => process.exit(0));
  });
}
