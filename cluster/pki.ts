/**
 * The control plane's certificates, made once per state folder: a cluster CA; the API
 * server's serving certificate; a client certificate per identity (the admin in
 * `system:masters`, the controller manager and scheduler as the users the default RBAC
 * roles name, kwok); and the service-account signing key pair. ECDSA P-256 throughout,
 * which every component accepts.
 */
// @peculiar/x509 resolves its providers through tsyringe, which needs the Reflect metadata API.
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import { isIP } from "node:net";
import * as x509 from "@peculiar/x509";

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const DAY_MS = 86_400_000;

/** A certificate and its key, PEM. */
export interface KeyPair {
  readonly certPem: string;
  readonly keyPem: string;
}

/** A client identity: the user name (CN) and groups (O). */
export interface Identity {
  readonly user: string;
  readonly groups?: readonly string[];
}

/** Everything the components are started with. */
export interface ClusterPki {
  readonly ca: KeyPair;
  readonly apiServer: KeyPair;
  /** Client certificates by identity name (`admin`, `kube-controller-manager`, …). */
  readonly clients: Readonly<Record<string, KeyPair>>;
  /** Service-account token signing key (PKCS#8) and its public key (SPKI). */
  readonly serviceAccount: { readonly keyPem: string; readonly publicPem: string };
}

/** The identities the control plane's components and its admin use. */
export const IDENTITIES: Readonly<Record<string, Identity>> = {
  admin: { user: "edgeloop-admin", groups: ["system:masters"] },
  "kube-controller-manager": { user: "system:kube-controller-manager" },
  "kube-scheduler": { user: "system:kube-scheduler" },
  // kwok plays every node's kubelet at once (as kwokctl runs it): one identity with full access.
  kwok: { user: "kwok-controller", groups: ["system:masters"] },
};

/** The names and addresses the API server answers to: loopback, and the in-cluster names of the `kubernetes` Service. */
export function apiServerHosts(serviceIp: string): string[] {
  return ["127.0.0.1", "localhost", serviceIp, "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"];
}

/** Makes a new CA and every certificate signed by it. */
export async function createPki(serviceIp: string, identities: Readonly<Record<string, Identity>> = IDENTITIES, days = 365): Promise<ClusterPki> {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const caKeys = await generate();
  const caCert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: "CN=edgeloop-cluster-ca",
    ...validity(days * 10),
    signingAlgorithm: ALGORITHM,
    keys: caKeys as unknown as x509.X509CertificateCreateSelfSignedParams["keys"],
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true)],
  });
  const ca = { certPem: pem(caCert), keyPem: await pkcs8(caKeys.privateKey) };
  const sign = (subject: string, usage: x509.ExtendedKeyUsage, hosts?: readonly string[]): Promise<KeyPair> => issue(caCert, caKeys.privateKey, subject, usage, days, hosts);
  const apiServer = await sign("CN=kube-apiserver", x509.ExtendedKeyUsage.serverAuth, apiServerHosts(serviceIp));
  const clients: Record<string, KeyPair> = {};
  for (const [name, identity] of Object.entries(identities)) clients[name] = await sign(subjectOf(identity), x509.ExtendedKeyUsage.clientAuth);
  const saKeys = await generate();
  const serviceAccount = { keyPem: await pkcs8(saKeys.privateKey), publicPem: spkiPem(await webcrypto.subtle.exportKey("spki", saKeys.publicKey)) };
  return { ca, apiServer, clients, serviceAccount };
}

/** `O=group1, O=group2, CN=user`: the API server reads the user from CN and groups from O. */
export function subjectOf(identity: Identity): string {
  const escape = (value: string): string => value.replace(/([,+"\\<>;=])/g, "\\$1");
  return [...(identity.groups ?? []).map((g) => `O=${escape(g)}`), `CN=${escape(identity.user)}`].join(", ");
}

async function issue(caCert: x509.X509Certificate, caKey: CryptoKey, subject: string, usage: x509.ExtendedKeyUsage, days: number, hosts?: readonly string[]): Promise<KeyPair> {
  const keys = await generate();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject,
    issuer: caCert.subject,
    ...validity(days),
    signingAlgorithm: ALGORITHM,
    publicKey: keys.publicKey as unknown as x509.X509CertificateCreateWithKeyParams["publicKey"],
    signingKey: caKey as unknown as x509.X509CertificateCreateWithKeyParams["signingKey"],
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([usage]),
      ...(hosts ? [new x509.SubjectAlternativeNameExtension(hosts.map((value) => ({ type: isIP(value) ? ("ip" as const) : ("dns" as const), value })))] : []),
    ],
  });
  return { certPem: pem(cert), keyPem: await pkcs8(keys.privateKey) };
}

function generate(): Promise<{ publicKey: CryptoKey; privateKey: CryptoKey }> {
  return webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]) as Promise<{ publicKey: CryptoKey; privateKey: CryptoKey }>;
}

function validity(days: number): { notBefore: Date; notAfter: Date } {
  const now = Date.now();
  return { notBefore: new Date(now - 60_000), notAfter: new Date(now + days * DAY_MS) };
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString("hex").replace(/^[89a-f]/, "1");
}

function pem(cert: x509.X509Certificate): string {
  return `${cert.toString("pem")}\n`;
}

function wrap(label: string, der: ArrayBuffer): string {
  return `-----BEGIN ${label}-----\n${Buffer.from(der).toString("base64").replace(/(.{64})/g, "$1\n").replace(/\n$/, "")}\n-----END ${label}-----\n`;
}

async function pkcs8(key: CryptoKey): Promise<string> {
  return wrap("PRIVATE KEY", await webcrypto.subtle.exportKey("pkcs8", key));
}

function spkiPem(der: ArrayBuffer): string {
  return wrap("PUBLIC KEY", der);
}
