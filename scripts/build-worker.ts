/** `npm run build:worker`: bundles the Worker and its controllers into dist/worker.js, with its deploy configuration beside it. */
import { z } from "zod";
import { cli } from "../cli/args.ts";
import { scriptLogger } from "../cli/log.ts";
import { writeWorkerBuild } from "./lib/worker-build.ts";

const HELP = `usage: npm run build:worker -- [--minify] [--controllers DIR]... [--help]

Bundles functions/worker.ts and every controller.ts one or two folders below
functions/controllers/ (and below each --controllers DIR) into dist/worker.js, and writes
dist/wrangler.json beside it: wrangler.jsonc plus every controller family's Durable
Objects, migrations and variables (their bindings.ts), what \`npm run deploy\` deploys.

  --minify            minify the bundle (npm run deploy does not: it ships the bytes the tests run)
  --controllers DIR   also bundle the controllers below DIR (repeatable)`;

const Flags = z.object({ minify: z.boolean().default(false), controllers: z.array(z.string().min(1)).default([]) });
const flags = cli({ name: "build:worker", help: HELP, options: { minify: { type: "boolean" }, controllers: { type: "string", multiple: true } }, schema: Flags });
const build = await writeWorkerBuild({ minify: flags.minify, extraControllerDirs: flags.controllers });
scriptLogger("build:worker")("info", "built", { file: build.scriptFile, bytes: Buffer.byteLength(build.script), config: build.configFile });
