/** `npm run build:relay`: bundles the relay into dist/relay.mjs, the file the relay image runs. */
import { join } from "node:path";
import { z } from "zod";
import { bundleRelay } from "./lib/bundle.ts";
import { cli } from "../cli/args.ts";
import { scriptLogger } from "../cli/log.ts";
import { ROOT } from "./lib/controllers.ts";

const HELP = `usage: npm run build:relay -- [--out FILE] [--minify] [--help]

Bundles relay/main.ts and its dependencies into one ES module (default dist/relay.mjs)
that runs on Node >= 22.19 (package.json's engines) without node_modules: node dist/relay.mjs --help.`;

const Flags = z.object({ out: z.string().min(1).default(join(ROOT, "dist/relay.mjs")), minify: z.boolean().default(false) });
const flags = cli({ name: "build:relay", help: HELP, options: { out: { type: "string" }, minify: { type: "boolean" } }, schema: Flags });
const bytes = await bundleRelay(flags.out, { minify: flags.minify });
scriptLogger("build:relay")("info", "built", { file: flags.out, bytes });
