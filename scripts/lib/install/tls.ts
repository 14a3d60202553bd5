/** A self-signed serving certificate for the relay's admission front (its own CA bundle). */
// @peculiar/x509 resolves its providers through tsyringe, which needs the Reflect metadata API.
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import { isIP } from "node:net";
import * as x509 from "@peculiar/x509";

/** PEM certificate and PKCS#8 key. */
export interface TlsPair {
  readonly certPem: string;
  readonly keyPem: string;
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
