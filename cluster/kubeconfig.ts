/** Kubeconfig files for the control plane's clients: one cluster, one user, one context. */
import { stringify } from "yaml";
import type { KeyPair } from "./pki.ts";

const b64 = (text: string): string => Buffer.from(text, "utf8").toString("base64");

/** How a kubeconfig's user authenticates: a client certificate, or a bearer token (a ServiceAccount's). */
export type Credentials = { readonly cert: KeyPair } | { readonly token: string };

/** A kubeconfig for `server`, trusting `caPem`, with `credentials`. */
export function kubeconfigYaml(server: string, caPem: string, user: string, credentials: Credentials, name = "edgeloop"): string {
  const auth = "cert" in credentials ? { "client-certificate-data": b64(credentials.cert.certPem), "client-key-data": b64(credentials.cert.keyPem) } : { token: credentials.token };
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server, "certificate-authority-data": b64(caPem) } }],
    users: [{ name: user, user: auth }],
    contexts: [{ name, context: { cluster: name, user } }],
    "current-context": name,
    preferences: {},
  });
}
