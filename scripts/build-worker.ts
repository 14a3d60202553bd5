/** `npm run build:worker`: bundles the Worker and its controllers into dist/worker.js. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { cli } from "../cli/args.ts";
import { scriptLogger } from "../cli/log.ts";
import { bundleWorker } from "./lib/bundle.ts";
import { ROOT } from "./lib/controllers.ts";

const HELP = `usage: npm run build:worker -- [--minify] [--controllers DIR]... [--help]

Bundles functions/worker.ts and every controller.ts one or two folders below
functions/controllers/ (and below each --controllers DIR) into dist/worker.js, the file
wrangler.jsonc deploys.

  --minify            minify the bundle (npm run deploy ships it minified)
  --controllers DIR   also bundle the controllers below DIR (repeatable)`;

const Flags = z.object({ minify: z.boolean().default(false), controllers: z.array(z.string().min(1)).default([]) });
const flags = cli({ name: "build:worker", help: HELP, options: { minify: { type: "boolean" }, controllers: { type: "string", multiple: true } }, schema: Flags });
const script = await bundleWorker({ minify: flags.minify, extraControllerDirs: flags.controllers });
mkdirSync(join(ROOT, "dist"), { recursive: true });
const out = join(ROOT, "dist/worker.js");
writeFileSync(out, script);
scriptLogger("build:worker")("info", "built", { file: out, bytes: Buffer.byteLength(script) });
