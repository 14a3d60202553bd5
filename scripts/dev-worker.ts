/** `npm run dev:worker -- --port P`: the Worker in workerd on 127.0.0.1:P. */
import { z } from "zod";
import { cli, fail } from "../cli/args.ts";
import { scriptLogger } from "../cli/log.ts";
import { takenPort } from "../cli/ports.ts";
import { startWorker } from "./lib/worker.ts";

const HELP = `usage: EDGELOOP_SECRET=... npm run dev:worker -- [--port P] [--persist DIR] [--controllers DIR]... [--help]

Serves the Worker (every controller folder) in workerd on 127.0.0.1. The HMAC secret
comes from the environment variable EDGELOOP_SECRET (at least 16 characters). Ctrl-C
stops it.

  --port P            the port (default 8787; 0 picks a free one)
  --persist DIR       keep the Durable Objects in DIR (default: in memory)
  --controllers DIR   also serve the controllers below DIR (repeatable)`;

const Flags = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(8787),
  persist: z.string().min(1).optional(),
  controllers: z.array(z.string().min(1)).default([]),
});
const Secret = z.string({ error: "EDGELOOP_SECRET is not set" }).min(16, "EDGELOOP_SECRET must be at least 16 characters");

const spec = { name: "dev:worker", help: HELP, options: { port: { type: "string" as const }, persist: { type: "string" as const }, controllers: { type: "string" as const, multiple: true } }, schema: Flags };
const flags = cli(spec);
const secret = Secret.safeParse(process.env.EDGELOOP_SECRET);
if (!secret.success) fail(spec, secret.error.issues[0]?.message ?? "bad EDGELOOP_SECRET");
const taken = await takenPort([{ flag: "--port", port: flags.port }]);
if (taken) {
  console.error(`dev:worker: ${taken}`);
  process.exit(1);
}

const worker = await startWorker({
  secret: secret.data,
  port: flags.port,
  extraControllerDirs: flags.controllers,
  ...(flags.persist ? { persistDir: flags.persist } : {}),
});
scriptLogger("dev:worker")("info", "worker ready", { url: worker.url });
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void worker.stop().then(() => process.exit(0));
  });
}
