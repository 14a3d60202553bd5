/**
 * Prints (or writes) the CustomResourceDefinition YAML of every custom resource of every
 * controller, generated from their zod schemas.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { z } from "zod";
import { loadControllers } from "./lib/controllers.ts";
import { crdOf, crdYaml, uniqueResources } from "../functions/kit/crd/generate.ts";
import type { CustomResource } from "../functions/kit/crd/resource.ts";

const HELP = `usage: npm run crds -- [--out DIR] [--help]

Generates the CustomResourceDefinitions (apiextensions.k8s.io/v1) of every custom
resource served by a controller (every controller.ts one or two folders below
functions/controllers/).

  --out DIR   write one <plural>.<group>.yaml per CRD into DIR (created if missing)
              instead of printing one multi-document YAML stream on stdout
  --help      show this help`;

const Flags = z.object({ out: z.string().min(1, "--out needs a directory").optional(), help: z.boolean().optional() });

async function main(): Promise<number> {
  let flags: z.infer<typeof Flags>;
  try {
    const { values } = parseArgs({ options: { out: { type: "string" }, help: { type: "boolean", short: "h" } }, strict: true });
    flags = Flags.parse(values);
  } catch (error) {
    const message = error instanceof z.ZodError ? (error.issues[0]?.message ?? "invalid flags") : (error as Error).message;
    console.error(`crds: ${message}\n\n${HELP}`);
    return 2;
  }
  if (flags.help) {
    console.log(HELP);
    return 0;
  }
  const controllers = await loadControllers();
  const resources: CustomResource[] = uniqueResources(controllers.flatMap((c) => c.resources ?? []));
  if (!flags.out) {
    process.stdout.write(crdYaml(resources));
    return 0;
  }
  mkdirSync(flags.out, { recursive: true });
  for (const resource of resources) {
    const file = join(flags.out, `${resource.plural}.${resource.group}.yaml`);
    writeFileSync(file, `---\n${stringify(crdOf(resource), { lineWidth: 0 })}`);
    console.error(JSON.stringify({ level: "info", msg: "wrote CRD", file }));
  }
  return 0;
}

process.exitCode = await main();
