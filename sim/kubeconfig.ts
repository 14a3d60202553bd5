import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { stringify } from "yaml";

/** The token of the sim's kubeconfig: the one its TokenReviews authenticate (it checks none of its own requests). */
export const SIM_TOKEN = "edgeloop-sim";
/** Who that token is. */
export const SIM_USER = "edgeloop-sim-admin";

/** A kubeconfig for the sim: one cluster, one context, a token user (the sim does no auth). */
export function kubeconfigYaml(server: string, name = "edgeloop-sim"): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server, "insecure-skip-tls-verify": true } }],
    users: [{ name: `${name}-admin`, user: { token: SIM_TOKEN } }],
    contexts: [{ name, context: { cluster: name, user: `${name}-admin`, namespace: "default" } }],
    "current-context": name,
    preferences: {},
  });
}

/** Writes the kubeconfig to `path` (mode 600, folders created). */
export function writeKubeconfig(path: string, server: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, kubeconfigYaml(server), { mode: 0o600 });
}
