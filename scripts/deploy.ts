/** `npm run deploy -- [--dry-run]`: bundles the Worker and publishes it with wrangler. */
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { z } from "zod";
import { cli } from "../cli/args.ts";
import { scriptLogger } from "../cli/log.ts";
import { ROOT } from "./lib/controllers.ts";
import { writeWorkerBuild } from "./lib/worker-build.ts";

const HELP = `usage: npm run deploy -- [--dry-run] [--help]

Bundles the Worker (functions/ and every controller folder) into dist/worker.js, the
very bytes the tests run in workerd, writes dist/wrangler.json (wrangler.jsonc plus every
controller family's Durable Objects, migrations and variables, and no_bundle: wrangler
uploads the bundle as it is) and runs \`wrangler deploy\` with it. Needs
CLOUDFLARE_API_TOKEN (or \`wrangler login\`) and the secret set once:
\`npx wrangler secret put EDGELOOP_SECRET\`.

  --dry-run   build everything offline (wrangler deploy --dry-run) and report the
              bundle's size; nothing is uploaded`;

const Flags = z.object({ "dry-run": z.boolean().default(false) });
const flags = cli({ name: "deploy", help: HELP, options: { "dry-run": { type: "boolean" } }, schema: Flags });

async function deploy(dryRun: boolean): Promise<number> {
  // The bundle the tests' workerd runs (startWorker), byte for byte: not minified, so a stack trace in the Worker's logs reads as the source.
  const { script, configFile } = await writeWorkerBuild();
  const outdir = join(ROOT, "dist/deploy");
  const args = ["wrangler", "deploy", "--config", configFile, ...(dryRun ? ["--dry-run", "--outdir", outdir] : [])];
  const result = spawnSync("npx", args, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
  if (result.status !== 0) {
    console.error(`deploy: wrangler deploy failed (exit ${String(result.status)})`);
    return result.status ?? 1;
  }
  if (dryRun) {
    const files = readdirSync(outdir).filter((f) => f.endsWith(".js"));
    const bytes = files.reduce((sum, f) => sum + statSync(join(outdir, f)).size, 0);
    const gzip = gzipSync(Buffer.from(script)).byteLength;
    scriptLogger("deploy")("info", "dry run: bundle built, nothing uploaded", { outdir, bytes, gzipBytes: gzip });
  }
  return 0;
}

process.exit(await deploy(flags["dry-run"]));
