/**
 * `npm run install-relay -- --worker-url URL [--dry-run]`: renders the relay's install
 * for a cluster (CRDs, Namespace, RBAC from the manifest, Secrets with the HMAC key and a
 * generated TLS pair, Deployment, Service, webhook configurations) and applies it, or
 * prints it as YAML with --dry-run.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { stringify } from "yaml";
import { z } from "zod";
import { crdsOf } from "../functions/kit/crd/generate.ts";
import type { KubeObject } from "../protocol/index.ts";
import { createRegistry } from "../functions/registry.ts";
import { KubeClient } from "../relay/kube/client.ts";
import { applyObject, readObject } from "./lib/apply.ts";
import { cli, fail, stringOptions } from "../cli/args.ts";
import { loadControllers, ROOT } from "./lib/controllers.ts";
import { installObjects, NAME, serviceHosts } from "./lib/install/objects.ts";
import { selfSignedCertificate, type TlsPair } from "./lib/install/tls.ts";

const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

const HELP = `usage: npm run install-relay -- --worker-url URL [options]

Installs the relay in the cluster of the current kubeconfig context: the CRDs (from the
zod schemas), Namespace, ServiceAccount, a least-privilege ClusterRole derived from the
controllers' manifest, the leader-election Role, a Secret with the HMAC key and one with
a generated TLS pair, the relay Deployment (leader-elected replicas) and Service, and the
admission webhook configurations with their caBundle. Re-running it updates everything
and keeps the existing HMAC key and TLS pair.

  --worker-url URL   the deployed Worker (npm run deploy prints it)
  --namespace NS     where the relay runs (default edgeloop)
  --image IMAGE      the relay image, built from relay/Dockerfile (default ghcr.io/edgeloop/relay:${VERSION})
  --replicas N       relay replicas (default 2)
  --kubeconfig FILE  the cluster (default: KUBECONFIG, then ~/.kube/config)
  --dry-run          print the YAML instead of applying it (nothing is read from the cluster)

Environment: EDGELOOP_SECRET, the HMAC key (default: the installed one, else a new random
key; set the same value on the Worker with 'npx wrangler secret put EDGELOOP_SECRET').`;

const Flags = z.object({
  "worker-url": z.url({ error: "must be the Worker's URL" }),
  namespace: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a DNS label").default("edgeloop"),
  image: z.string().min(1).default(`ghcr.io/edgeloop/relay:${VERSION}`),
  replicas: z.coerce.number().int().min(1).max(10).default(2),
  kubeconfig: z.string().min(1).optional(),
  "dry-run": z.boolean().default(false),
});
const Env = z.object({ EDGELOOP_SECRET: z.string().min(16, "EDGELOOP_SECRET must be at least 16 characters").optional() });

const spec = { name: "install-relay", help: HELP, options: { ...stringOptions(Flags), "dry-run": { type: "boolean" as const } }, schema: Flags };
const flags = cli(spec);
const env = Env.safeParse(process.env);
if (!env.success) fail(spec, env.error.issues[0]?.message ?? "bad environment");

const controllers = await loadControllers();
const manifest = createRegistry(controllers).manifest;
const crds = crdsOf(controllers) as unknown as KubeObject[];

let client: KubeClient | undefined;
if (!flags["dry-run"]) {
  const kc = new KubeConfig();
  if (flags.kubeconfig) kc.loadFromFile(flags.kubeconfig);
  else kc.loadFromDefault();
  client = new KubeClient(kc);
}

/** The installed Secret's value of `key`, to keep keys stable across re-installs. */
async function installed(name: string, key: string): Promise<string | undefined> {
  if (!client) return undefined;
  const secret = (await readObject(client, { apiVersion: "v1", kind: "Secret", metadata: { name, namespace: flags.namespace } } as KubeObject)) as { data?: Record<string, string> } | undefined;
  const value = secret?.data?.[key];
  return value === undefined ? undefined : Buffer.from(value, "base64").toString("utf8");
}

const secret = env.data.EDGELOOP_SECRET ?? (await installed(`${NAME}-hmac`, "EDGELOOP_SECRET")) ?? randomBytes(32).toString("hex");
const [cert, key] = [await installed(`${NAME}-tls`, "tls.crt"), await installed(`${NAME}-tls`, "tls.key")];
const tls: TlsPair = cert && key ? { certPem: cert, keyPem: key } : await selfSignedCertificate(serviceHosts(flags.namespace));
const objects = installObjects({ workerUrl: flags["worker-url"], namespace: flags.namespace, image: flags.image, replicas: flags.replicas, secret, tls, manifest, crds });

if (flags["dry-run"] || !client) {
  process.stdout.write(objects.map((o) => stringify(o, { lineWidth: 0 })).join("---\n"));
} else {
  for (const object of objects) {
    const result = await applyObject(client, object);
    console.log(`${object.kind.toLowerCase()}/${object.metadata.name ?? ""} ${result}`);
  }
  for (const api of manifest.controllers.flatMap((c) => c.apis)) {
    console.error(`API ${api.name}: https://${NAME}.${flags.namespace}.svc${api.pathPrefix} (CA: the tls.crt of secret ${flags.namespace}/${NAME}-tls)`);
  }
  if (!env.data.EDGELOOP_SECRET) console.error(`The HMAC key is in secret ${flags.namespace}/${NAME}-hmac; give the Worker the same value (npx wrangler secret put EDGELOOP_SECRET).`);
}
