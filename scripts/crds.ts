/**
 * Prints (or writes) the CustomResourceDefinition YAML of every custom resource of every
 * controller, generated from their zod schemas.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { z } from "zod";
import { cli } from "../cli/args.ts";
import { loadControllers } from "./lib/controllers.ts";
import { crdOf, crdYaml, uniqueResources } from "../functions/kit/crd/generate.ts";
import type { CustomResource } from "../functions/kit/crd/resource.ts";

const HELP = `usage: npm run --silent crds -- [--out DIR] [--help]

Generates the CustomResourceDefinitions (apiextensions.k8s.io/v1) of every custom
resource served by a controller (every controller.ts one or two folders below
functions/controllers/), as one multi-document YAML stream on stdout:

  npm run --silent crds | kubectl apply -f -

(--silent, or -s: without it npm prints its "> edgeloop@... crds" banner on stdout too,
before the YAML, and kubectl cannot parse that.)

  --out DIR   write one <plural>.<group>.yaml per CRD into DIR (created if missing)
              instead of printing them: kubectl apply -f DIR
  --help      show this help`;

const Flags = z.object({ out: z.string().min(1, "--out needs a directory").optional() });
const flags = cli({ name: "crds", help: HELP, options: { out: { type: "string" } }, schema: Flags });

/**
 * Whether npm printed its run banner into the same pipe (stdout is not a terminal, and
 * npm was not told --silent): the YAML is then preceded by text kubectl cannot read.
 */
function npmBannerOnStdout(): boolean {
  const env = process.env;
  return env.npm_lifecycle_event === "crds" && (env.npm_config_user_agent ?? "").startsWith("npm/") && env.npm_config_loglevel !== "silent" && env.npm_config_json !== "true" && process.stdout.isTTY !== true;
}

const controllers = await loadControllers();
const resources: CustomResource[] = uniqueResources(controllers.flatMap((c) => c.resources ?? []));
if (!flags.out) {
  process.stdout.write(crdYaml(resources));
  if (npmBannerOnStdout()) console.error('crds: npm wrote its "> edgeloop@... crds" banner to stdout before this YAML; to pipe it (to kubectl), run: npm run --silent crds | kubectl apply -f -');
} else {
  mkdirSync(flags.out, { recursive: true });
  for (const resource of resources) {
    const file = join(flags.out, `${resource.plural}.${resource.group}.yaml`);
    writeFileSync(file, `---\n${stringify(crdOf(resource), { lineWidth: 0 })}`);
    console.error(`wrote ${file}`);
  }
}
