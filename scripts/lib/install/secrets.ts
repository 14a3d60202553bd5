/**
 * The relay's two keys: the HMAC key it shares with the Worker and the TLS pair of its
 * admission front. They are kept stable across installs (taken from EDGELOOP_SECRET, a
 * file of an earlier install, or the cluster) and generated only when none is found;
 * every choice is said on stderr, the keys never are.
 */
import { createPrivateKey, randomBytes, X509Certificate } from "node:crypto";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "../../../protocol/index.ts";
import { NAME } from "./objects.ts";
import { caSignedCertificate, type TlsPair } from "./tls.ts";

/** Where a key came from. */
export type KeyOrigin = "environment" | "file" | "cluster" | "generated";

/** The keys of an install and where each came from. */
export interface InstallKeys {
  readonly secret: string;
  readonly tls: TlsPair;
  readonly origin: { readonly hmac: KeyOrigin; readonly tls: KeyOrigin };
}

/** Keys found somewhere (each may be missing). */
export interface FoundKeys {
  readonly secret?: string;
  readonly tls?: TlsPair;
}

/** The names of the two Secrets. */
export const HMAC_SECRET = `${NAME}-hmac`;
export const TLS_SECRET = `${NAME}-tls`;

/** A key source that cannot be used, with the reason. */
export class KeysError extends Error {}

interface SecretObject {
  kind?: unknown;
  metadata?: { name?: unknown; namespace?: unknown };
  data?: Record<string, unknown>;
  stringData?: Record<string, unknown>;
}

/**
 * The keys in YAML an earlier install wrote (`install-relay --dry-run` output, or
 * `kubectl get secret -o yaml` of the two Secrets, a List included).
 */
export function keysFromYaml(text: string, namespace: string): FoundKeys {
  const objects = parseAllDocuments(text).flatMap((doc) => {
    const value = doc.toJS() as (SecretObject & { items?: SecretObject[] }) | null;
    return value?.items ?? (value ? [value] : []);
  });
  const value = (name: string, key: string): string | undefined => {
    const secret = objects.find((o) => o.kind === "Secret" && o.metadata?.name === name && (o.metadata.namespace ?? namespace) === namespace);
    const plain = secret?.stringData?.[key];
    if (typeof plain === "string") return plain;
    const encoded = secret?.data?.[key];
    return typeof encoded === "string" ? Buffer.from(encoded, "base64").toString("utf8") : undefined;
  };
  const secret = value(HMAC_SECRET, "EDGELOOP_SECRET");
  const certPem = value(TLS_SECRET, "tls.crt");
  const keyPem = value(TLS_SECRET, "tls.key");
  const caPem = value(TLS_SECRET, "ca.crt");
  return { ...(secret ? { secret } : {}), ...(certPem && keyPem ? { tls: { certPem, keyPem, ...(caPem ? { caPem } : {}) } } : {}) };
}

/** Why a TLS pair cannot serve the front at `hosts` (undefined when it can). */
export function tlsProblem(tls: TlsPair, hosts: readonly string[]): string | undefined {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(tls.certPem);
  } catch {
    return "its tls.crt is not a PEM certificate";
  }
  try {
    if (!cert.checkPrivateKey(createPrivateKey(tls.keyPem))) return "its tls.key does not belong to its tls.crt";
  } catch {
    return "its tls.key is not a PEM private key";
  }
  const missing = hosts.find((host) => cert.checkHost(host) === undefined);
  if (missing) return `its certificate is not for ${missing} (another --namespace?)`;
  if (Date.parse(cert.validTo) < Date.now()) return `its certificate expired on ${cert.validTo}`;
  return tls.caPem === undefined ? undefined : caProblem(cert, tls.caPem);
}

function caProblem(cert: X509Certificate, caPem: string): string | undefined {
  try {
    const ca = new X509Certificate(caPem);
    return cert.checkIssued(ca) && cert.verify(ca.publicKey) ? undefined : "its ca.crt did not sign its tls.crt";
  } catch {
    return "its ca.crt is not a PEM certificate";
  }
}

/**
 * The keys to install, in order of preference: EDGELOOP_SECRET for the HMAC key, then
 * the file, then the cluster; a new key or pair for whatever is still missing.
 */
export async function chooseKeys(sources: { readonly environment?: string; readonly file?: FoundKeys; readonly cluster?: FoundKeys; readonly hosts: readonly string[]; readonly rotateTls?: boolean }): Promise<InstallKeys> {
  const fileTls = sources.rotateTls ? undefined : sources.file?.tls;
  if (fileTls) {
    const problem = tlsProblem(fileTls, sources.hosts);
    if (problem) throw new KeysError(`the TLS pair of ${TLS_SECRET} cannot be reused: ${problem}`);
  }
  const hmac: [string, KeyOrigin] | undefined = sources.environment
    ? [sources.environment, "environment"]
    : sources.file?.secret
      ? [sources.file.secret, "file"]
      : sources.cluster?.secret
        ? [sources.cluster.secret, "cluster"]
        : undefined;
  const clusterTls = sources.rotateTls ? undefined : sources.cluster?.tls;
  const tls: [TlsPair, KeyOrigin] | undefined = fileTls ? [fileTls, "file"] : clusterTls ? [clusterTls, "cluster"] : undefined;
  return {
    secret: hmac?.[0] ?? randomBytes(32).toString("hex"),
    tls: tls?.[0] ?? (await caSignedCertificate(sources.hosts)),
    origin: { hmac: hmac?.[1] ?? "generated", tls: tls?.[1] ?? "generated" },
  };
}

/** What to tell the person about the keys (stderr): where each came from and which Secret holds it; never the keys. */
export function keysNotes(keys: InstallKeys, namespace: string, options: { readonly dryRun: boolean; readonly file?: string; readonly out?: string; readonly withheld?: boolean }): string[] {
  const from: Record<KeyOrigin, string> = {
    environment: "taken from EDGELOOP_SECRET",
    file: `reused from ${options.file ?? "the --reuse-secrets file"}`,
    cluster: "kept from the cluster",
    generated: options.dryRun ? "generated (a dry run reads nothing from the cluster)" : "generated",
  };
  const where = options.withheld ? "(its data left out of this output)" : options.dryRun ? `in ${options.out ?? "this output"}` : "in the cluster";
  const notes = [
    `HMAC key: ${from[keys.origin.hmac]}; it is in Secret ${namespace}/${HMAC_SECRET} ${where}. Give the Worker the same value: npx wrangler secret put EDGELOOP_SECRET`,
    `TLS key and certificate of the admission front: ${from[keys.origin.tls]}; they are in Secret ${namespace}/${TLS_SECRET} ${where}.`,
  ];
  if (options.dryRun && !options.withheld && (keys.origin.hmac === "generated" || keys.origin.tls === "generated")) {
    notes.push(`Keep ${options.out ?? "this output"} private (it holds the keys), and pass --reuse-secrets ${options.out ?? "FILE"} next time to keep the same keys.`);
  }
  return notes;
}

/**
 * What a dry run prints where a Secret it leaves out would go: a YAML comment (an empty
 * document, which kubectl skips) naming the Secret, its type and keys, and how to get or
 * make it. Left out, not emptied: kube-apiserver refuses a `kubernetes.io/tls` Secret
 * without `tls.crt` and `tls.key`, so an emptied Secret would make the printed install
 * fail to apply (and a server-side dry run of it fail).
 */
export function secretLeftOutComment(secret: KubeObject): string {
  const { name = "", namespace = "" } = secret.metadata;
  const type = typeof secret["type"] === "string" ? secret["type"] : "Opaque";
  const keys = Object.keys({ ...(secret["data"] as object | undefined), ...(secret["stringData"] as object | undefined) });
  const make = type === "kubernetes.io/tls" ? `kubectl -n ${namespace} create secret tls ${name} --cert=tls.crt --key=tls.key` : `kubectl -n ${namespace} create secret generic ${name} ${keys.map((k) => `--from-literal=${k}=...`).join(" ")}`;
  return [
    `# Secret ${namespace}/${name} (type ${type}, keys ${keys.join(", ")}) goes here: left out because it holds keys.`,
    `# Get it with --out FILE (written mode 600) or --include-secrets, or make it: ${make}`,
    "",
  ].join("\n");
}

/** What to do when the Secrets are left out of the printed install (stderr). */
export function secretsLeftOutNote(namespace: string): string {
  return [
    `The Secrets ${namespace}/${HMAC_SECRET} and ${namespace}/${TLS_SECRET} are left out of the printed install (they hold the keys).`,
    `Pass --out FILE (written mode 600) or --include-secrets to get them; the webhooks' caBundle above matches only the TLS pair generated in this run.`,
    `Or create them yourself: kubectl -n ${namespace} create secret generic ${HMAC_SECRET} --from-literal=EDGELOOP_SECRET=...,`,
    `kubectl -n ${namespace} create secret tls ${TLS_SECRET} --cert=tls.crt --key=tls.key (plus ca.crt), and re-run install-relay without --dry-run to keep them.`,
  ].join(" ");
}
