/**
 * `npm run install-relay -- --worker-url URL --image IMAGE [--dry-run]`: renders the
 * relay's install for a cluster (CRDs, Namespace, RBAC from the manifest, Secrets with
 * the HMAC key and a TLS pair, Deployment, Service, the edge channels' peer Services,
 * webhook configurations) and applies it, or writes it as YAML with --dry-run.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { KubeConfig } from "@kubernetes/client-node";
import { stringify } from "yaml";
import { z } from "zod";
import { crdsOf } from "../functions/kit/crd/generate.ts";
import type { KubeObject } from "../protocol/index.ts";
import { isDns1123Label, isDns1123Subdomain } from "../protocol/kube/names.ts";
import { createRegistry } from "../functions/registry.ts";
import { KubeClient } from "../relay/kube/client.ts";
import { applyObject, readObject } from "./lib/apply.ts";
import { cli, fail } from "../cli/args.ts";
import { loadControllers } from "./lib/controllers.ts";
import { API_CLIENTS_LABEL, API_CLIENTS_VALUE, isCidr } from "./lib/install/network-policy.ts";
import { API_PORT, CHANNELS_SERVICE, installObjects, NAME, serviceHosts } from "./lib/install/objects.ts";
import { LEADER_LABEL } from "../relay/ops/leader-label.ts";
import { chooseKeys, HMAC_SECRET, keysFromYaml, keysNotes, KeysError, secretLeftOutComment, secretsLeftOutNote, TLS_SECRET, type FoundKeys, type InstallKeys } from "./lib/install/secrets.ts";

const HELP = `usage: npm run install-relay -- --worker-url URL --image IMAGE [options]

Installs the relay in the cluster of the current kubeconfig context: the CRDs (from the
zod schemas), Namespace, ServiceAccount, a least-privilege ClusterRole derived from the
controllers' manifest, the leader-election Role, the Role with which the leader labels
its own pod, a Secret with the HMAC key and one with the admission front's TLS pair (a
1-year certificate signed by a 10-year CA, whose key is not kept), the relay Deployment
(leader-elected replicas, Pod Security Standard "restricted") and Service, the admission
webhook configurations with their caBundle, and for each edge channel a controller
declares, its port on the relay and on the Service edgeloop-relay-channels (the leading
replica's pod only), and the Service its peers' own manifests dial (an ExternalName to
that one, in its own namespace), and a NetworkPolicy: the controllers' APIs are
unauthenticated, so only pods of namespaces labelled ${API_CLIENTS_LABEL}=${API_CLIENTS_VALUE}
(those that run NerveX jobs: label them) may reach the API port; the TLS front (admission,
called by the API server, and the same APIs) admits them and --api-server-cidr, or anyone
when that is not given. Re-running it updates everything and keeps the installed HMAC key
and TLS pair.

  --worker-url URL       the deployed Worker (npm run deploy prints it)
  --image IMAGE          the relay image, required: none is published for you. Build
                         relay/Dockerfile and push it where the cluster can pull it
  --namespace NS         where the relay runs (default edgeloop)
  --replicas N           relay replicas (default 2)
  --kubeconfig FILE      the cluster (default: KUBECONFIG, then ~/.kube/config)
  --api-server-cidr C    the API server's source addresses as CIDRs, comma-separated:
                         with them the TLS front admits only those and the labelled
                         namespaces (without, the front is open to every pod, as the API
                         server's calls cannot be told from a pod's)
  --cluster-domain D     the cluster's DNS domain, which the edge channels' Services point
                         into (default cluster.local)
  --dry-run              render the YAML instead of applying it (nothing is read from the
                         cluster, so the keys are new unless --reuse-secrets is given)
  --out FILE             with --dry-run: write the YAML to FILE (mode 600: it holds the
                         keys) instead of stdout
  --include-secrets      with --dry-run and no --out: print the keys in the Secrets on
                         stdout too (without it their data is left out: stdout is often
                         a log)
  --rotate-tls           make a new CA and serving certificate (1 year) instead of
                         keeping the installed ones; the webhooks' caBundle follows
  --reuse-secrets FILE   take the HMAC key and the TLS pair from FILE: an earlier
                         --dry-run output, or 'kubectl get secret -n NS -o yaml
                         ${HMAC_SECRET} ${TLS_SECRET}'

Environment: EDGELOOP_SECRET, the HMAC key (default: --reuse-secrets, then the installed
one, else a new random key; set the same value on the Worker with
'npx wrangler secret put EDGELOOP_SECRET'). Which key was used is said on stderr.`;

const Flags = z
  .object({
    "worker-url": z.url({ error: "must be the Worker's URL" }),
    image: z.string({ error: "is required: no relay image is published for you; build relay/Dockerfile, push it where the cluster can pull it, and pass it here" }).min(1),
    namespace: z.string().refine((name) => isDns1123Label(name).length === 0, "must be a DNS label").default("edgeloop"),
    replicas: z.coerce.number().int().min(1).max(10).default(2),
    kubeconfig: z.string().min(1).optional(),
    "api-server-cidr": z
      .string()
      .transform((text) => text.split(",").map((cidr) => cidr.trim()).filter((cidr) => cidr !== ""))
      .refine((cidrs) => cidrs.length > 0 && cidrs.length <= 16 && cidrs.every(isCidr), "must be 1 to 16 comma-separated CIDRs, e.g. 10.0.0.0/24")
      .optional(),
    "cluster-domain": z.string().refine((name) => isDns1123Subdomain(name).length === 0, "must be a DNS name").default("cluster.local"),
    "dry-run": z.boolean().default(false),
    out: z.string().min(1).optional(),
    "include-secrets": z.boolean().default(false),
    "rotate-tls": z.boolean().default(false),
    "reuse-secrets": z.string().min(1).optional(),
  })
  .refine((f) => f.out === undefined || f["dry-run"], { path: ["out"], message: "is for --dry-run (without it the install is applied, not written)" });
const Env = z.object({ EDGELOOP_SECRET: z.string().min(16, "EDGELOOP_SECRET must be at least 16 characters").optional() });

const spec = { name: "install-relay", help: HELP, options: { ...Object.fromEntries(Object.keys(Flags.shape).map((name) => [name, { type: "string" as const }])), "dry-run": { type: "boolean" as const }, "include-secrets": { type: "boolean" as const }, "rotate-tls": { type: "boolean" as const } }, schema: Flags };
const flags = cli(spec);
const env = Env.safeParse(process.env);
if (!env.success) fail(spec, env.error.issues[0]?.message ?? "bad environment");

/** A failure a person can act on: one line on stderr, exit 1. */
function exitWith(message: string): never {
  console.error(`install-relay: ${message}`);
  process.exit(1);
}

let fromFile: FoundKeys | undefined;
if (flags["reuse-secrets"]) {
  try {
    fromFile = keysFromYaml(readFileSync(flags["reuse-secrets"], "utf8"), flags.namespace);
  } catch (error) {
    exitWith(`--reuse-secrets ${flags["reuse-secrets"]}: ${(error as Error).message}`);
  }
  if (!fromFile.secret && !fromFile.tls) exitWith(`--reuse-secrets ${flags["reuse-secrets"]} holds neither Secret ${flags.namespace}/${HMAC_SECRET} nor ${flags.namespace}/${TLS_SECRET}`);
}

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

async function fromCluster(): Promise<FoundKeys> {
  const [secret, certPem, keyPem, caPem] = [await installed(HMAC_SECRET, "EDGELOOP_SECRET"), await installed(TLS_SECRET, "tls.crt"), await installed(TLS_SECRET, "tls.key"), await installed(TLS_SECRET, "ca.crt")];
  return { ...(secret ? { secret } : {}), ...(certPem && keyPem ? { tls: { certPem, keyPem, ...(caPem ? { caPem } : {}) } } : {}) };
}

let keys: InstallKeys;
try {
  keys = await chooseKeys({
    ...(env.data.EDGELOOP_SECRET ? { environment: env.data.EDGELOOP_SECRET } : {}),
    ...(fromFile ? { file: fromFile } : {}),
    ...(client ? { cluster: await fromCluster() } : {}),
    hosts: serviceHosts(flags.namespace),
    rotateTls: flags["rotate-tls"],
  });
} catch (error) {
  if (error instanceof KeysError) exitWith(`--reuse-secrets ${flags["reuse-secrets"] ?? ""}: ${error.message}`);
  throw error;
}
const objects = installObjects({ workerUrl: flags["worker-url"], namespace: flags.namespace, image: flags.image, replicas: flags.replicas, secret: keys.secret, tls: keys.tls, manifest, crds, clusterDomain: flags["cluster-domain"], ...(flags["api-server-cidr"] ? { frontFrom: flags["api-server-cidr"] } : {}) });
// A dry run prints the keys only to a private file, or to stdout when asked.
const withheld = flags["dry-run"] && !flags.out && !flags["include-secrets"];
const notes = keysNotes(keys, flags.namespace, { dryRun: flags["dry-run"], withheld, ...(flags["reuse-secrets"] ? { file: flags["reuse-secrets"] } : {}), ...(flags.out ? { out: flags.out } : {}) });

if (flags["dry-run"] || !client) {
  const yaml = objects.map((o) => (withheld && o.kind === "Secret" ? secretLeftOutComment(o) : stringify(o, { lineWidth: 0 }))).join("---\n");
  if (withheld) notes.push(secretsLeftOutNote(flags.namespace));
  if (flags.out) {
    // Made anew, so that it is private even where an older copy was not.
    rmSync(flags.out, { force: true });
    writeFileSync(flags.out, yaml, { mode: 0o600, flag: "wx" });
  }
  else process.stdout.write(yaml);
} else {
  for (const object of objects) {
    const result = await applyObject(client, object);
    console.log(`${object.kind.toLowerCase()}/${object.metadata.name ?? ""} ${result}`);
  }
  for (const api of manifest.controllers.flatMap((c) => c.apis)) {
    console.error(`API ${api.name}: https://${NAME}.${flags.namespace}.svc${api.pathPrefix} (CA: the tls.crt of secret ${flags.namespace}/${TLS_SECRET})`);
  }
  for (const channel of manifest.controllers.flatMap((c) => c.channels)) {
    const dialed = channel.service ? `${channel.service.name}.${channel.service.namespace}:${channel.port}, an ExternalName to ` : "";
    console.error(`channel ${channel.name}: ws://${dialed}${CHANNELS_SERVICE}.${flags.namespace}:${channel.port}/ (the leading replica's pod, labelled ${LEADER_LABEL}=true)`);
  }
}
notes.push(
  `NetworkPolicy ${flags.namespace}/${NAME}: the APIs' port ${API_PORT} admits only pods of namespaces labelled ${API_CLIENTS_LABEL}=${API_CLIENTS_VALUE} (kubectl label namespace NS ${API_CLIENTS_LABEL}=${API_CLIENTS_VALUE} for each namespace that runs NerveX jobs); ` +
    (flags["api-server-cidr"] ? `the TLS front admits them and ${flags["api-server-cidr"].join(", ")}` : "the TLS front (admission and the same APIs) admits every pod: pass --api-server-cidr to fence it too") +
    ". A NetworkPolicy is enforced only by a CNI that implements it.",
);
for (const note of notes) console.error(note);
