/** `npm run deploy -- [--dry-run]`: bundles the Worker and publishes it with wrangler. */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { bundleWorker } from "./lib/bundle.ts";
import { ROOT } from "./lib/controllers.ts";

const HELP = `usage: npm run deploy -- [--dry-run] [--help]

Bundles the Worker (functions/ and every controller folder) into dist/worker.js and runs
\`wrangler deploy\` with wrangler.jsonc. Needs CLOUDFLARE_API_TOKEN (or \`wrangler login\`)
and the secret set once: \`npx wrangler secret put EDGELOOP_SECRET\`.

  --dry-run   build everything offline (wrangler deploy --dry-run) and report the
              bundle's size; nothing is uploaded`;

/** The parsed flags, or an exit code when there is nothing to deploy (help, bad flags). */
function parseFlags(): { dryRun: boolean } | number {
  try {
    const { values } = parseArgs({ options: { "dry-run": { type: "boolean" }, help: { type: "boolean", short: "h" } }, strict: true });
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    return { dryRun: values["dry-run"] ?? false };
  } catch (error) {
    console.error(`deploy: ${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
}

async function deploy(dryRun: boolean): Promise<number> {
  const script = await bundleWorker({ minify: true });
  mkdirSync(join(ROOT, "dist"), { recursive: true });
  writeFileSync(join(ROOT, "dist/worker.js"), script);
  const outdir = join(ROOT, "dist/deploy");
  const args = ["wrangler", "deploy", ...(dryRun ? ["--dry-run", "--outdir", outdir] : [])];
  const result = spawnSync("npx", args, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
  if (result.status !== 0) {
    console.error(JSON.stringify({ level: "error", msg: "wrangler deploy failed", status: result.status }));
    return result.status ?? 1;
  }
  if (dryRun) {
    const files = readdirSync(outdir).filter((f) => f.endsWith(".js"));
    const bytes = files.reduce((sum, f) => sum + statSync(join(outdir, f)).size, 0);
    const gzip = gzipSync(Buffer.from(script)).byteLength;
    console.log(JSON.stringify({ level: "info", msg: "dry run: bundle built, nothing uploaded", outdir, bytes, gzipBytes: gzip }));
  }
  return 0;
}

const flags = parseFlags();
process.exit(typeof flags === "number" ? flags : await deploy(flags.dryRun));
