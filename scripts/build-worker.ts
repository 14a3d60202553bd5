/** `npm run build:worker`: bundles the Worker and its controllers into dist/worker.js. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { bundleWorker } from "./lib/bundle.ts";
import { ROOT } from "./lib/controllers.ts";

const HELP = `usage: npm run build:worker -- [--minify] [--controllers DIR]... [--help]

Bundles functions/worker.ts and every controller.ts one or two folders below
functions/controllers/ (and below each --controllers DIR) into dist/worker.js, the file
wrangler.jsonc deploys.`;

const { values } = parseArgs({
  options: { minify: { type: "boolean" }, controllers: { type: "string", multiple: true }, help: { type: "boolean", short: "h" } },
  strict: true,
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const script = await bundleWorker({ minify: values.minify ?? false, extraControllerDirs: values.controllers ?? [] });
mkdirSync(join(ROOT, "dist"), { recursive: true });
const out = join(ROOT, "dist/worker.js");
writeFileSync(out, script);
console.log(JSON.stringify({ level: "info", msg: "built", file: out, bytes: Buffer.byteLength(script) }));
