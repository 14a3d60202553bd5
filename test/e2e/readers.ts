/**
 * Tokens for the APIs with readers (`GET /v1/gangs`, ADR 0010): the relay front reviews
 * a caller's bearer token with the API server. On the sim, the token of its kubeconfig
 * (the one it authenticates); on a real control plane, a ServiceAccount's, bound to the
 * built-in `view` ClusterRole in the namespaces given (every namespace when none).
 */
import { GangList, type GangRow } from "../../functions/controllers/gang/api/schema.ts";
import { SIM_TOKEN } from "../../sim/kubeconfig.ts";
import { kubectlFor } from "../sim/kubectl.ts";
import type { E2EStack } from "./harness.ts";

/** A bearer token whose user may list pods in `namespaces` (every namespace when none; on the sim, always every one). */
export async function readerToken(stack: E2EStack, name: string, namespaces: readonly string[] = []): Promise<string> {
  if (stack.target === "sim") return SIM_TOKEN;
  const kubectl = kubectlFor(stack.kubeconfigPath);
  await kubectl(["create", "serviceaccount", name, "-n", "default"]);
  if (namespaces.length === 0) await kubectl(["create", "clusterrolebinding", name, "--clusterrole=view", `--serviceaccount=default:${name}`]);
  for (const namespace of namespaces) await kubectl(["create", "rolebinding", name, "-n", namespace, "--clusterrole=view", `--serviceaccount=default:${name}`]);
  return (await kubectl(["create", "token", name, "-n", "default", "--duration=2h"])).trim();
}

/**
 * The gang queue's rows (`GET /v1/gangs`) as `token`'s user reads them through the relay:
 * of `namespace`, or of every namespace it may list when none is given. Throws with the
 * status and body on anything but 200.
 */
export async function gangRows(relay: { readonly apiUrl: string }, token: string, namespace?: string): Promise<GangRow[]> {
  const response = await fetch(`${relay.apiUrl}/v1/gangs${namespace === undefined ? "" : `?namespace=${namespace}`}`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`GET /v1/gangs: ${response.status} ${await response.text()}`);
  return GangList.parse(await response.json()).items;
}
