/**
 * TLS for the relay's front: a CA (10 years) that signs a serving certificate (1 year);
 * the webhooks' caBundle is the CA, so the serving pair can be replaced without the
 * CA's key ever reaching the cluster (it is dropped once the certificate is signed).
 * `selfSignedCertificate` remains for the local stack's throwaway front.
 */
// @peculiar/x509 resolves its providers through tsyringe, which needs the Reflect metadata API.
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import { isIP } from "node:net";
import * as x509 from "@peculiar/x509";

/** PEM certificate and PKCS#8 key, and the CA that signed the certificate (absent: self-signed). */
export interface TlsPair {
  readonly certPem: string;
  readonly keyPem: string;
  readonly caPem?: string;
}

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString("hex").replace(/^[89a-f]/, "1");
}

function pkcs8Pem(der: ArrayBuffer): string {
  return `-----BEGIN PRIVATE KEY-----\n${Buffer.from(der).toString("base64").replace(/(.{64})/g, "$1\n").replace(/\n$/, "")}\n-----END PRIVATE KEY-----\n`;
}

function sans(hosts: readonly string[]): x509.SubjectAlternativeNameExtension {
  return new x509.SubjectAlternativeNameExtension(hosts.map((value) => ({ type: isIP(value) ? ("ip" as const) : ("dns" as const), value })));
}

/** A serving certificate for `hosts`, valid `days` (default 1 year), signed by a new CA valid `caDays` (default 10 years). */
export async function caSignedCertificate(hosts: readonly string[], days = 365, caDays = 3650): Promise<TlsPair> {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const now = Date.now();
  const caKeys = await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: "CN=edgeloop-relay CA",
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + caDays * 86_400_000),
    signingAlgorithm: ALGORITHM,
    keys: caKeys as unknown as x509.X509CertificateCreateSelfSignedParams["keys"],
    extensions: [new x509.BasicConstraintsExtension(true, 0, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true)],
  });
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${hosts[0] ?? "edgeloop-relay"}`,
    issuer: ca.subject,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + days * 86_400_000),
    signingAlgorithm: ALGORITHM,
    publicKey: keys.publicKey as unknown as x509.X509CertificateCreateWithKeyParams["publicKey"],
    signingKey: caKeys.privateKey as unknown as x509.X509CertificateCreateWithKeyParams["signingKey"],
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      sans(hosts),
    ],
  });
  return { certPem: `${cert.toString("pem")}\n`, keyPem: pkcs8Pem(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey)), caPem: `${ca.toString("pem")}\n` };
}

/** A certificate for `hosts` (DNS names or IP addresses; the first is the common name), valid for `days`. */
export async function selfSignedCertificate(hosts: readonly string[], days = 3650): Promise<TlsPair> {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const algorithm = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ["sign", "verify"]);
  const now = new Date();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString("hex").replace(/^[89a-f]/, "1"),
    name: `CN=${hosts[0] ?? "edgeloop-relay"}`,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + days * 86_400_000),
    signingAlgorithm: algorithm,
    keys: keys as unknown as x509.X509CertificateCreateSelfSignedParams["keys"],
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(hosts.map((value) => ({ type: isIP(value) ? ("ip" as const) : ("dns" as const), value }))),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey("pkcs8", keys.privateKey);
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${Buffer.from(pkcs8).toString("base64").replace(/(.{64})/g, "$1\n").replace(/\n$/, "")}\n-----END PRIVATE KEY-----\n`;
  return { certPem: `${cert.toString("pem")}\n`, keyPem };
}
