/**
 * Applies the CRDs of every controller's custom resources to a cluster, through the
 * same client the relay uses. `npm start` uses it on the sim and on a real cluster alike.
 */
import { KubeConfig } from "@kubernetes/client-node";
import { crdsOf } from "../../functions/kit/crd/generate.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { KubeClient } from "../../relay/kube/client.ts";
import { applyObject } from "./apply.ts";
import { loadControllers } from "./controllers.ts";

/** Installs (or updates) the CRDs; returns their names. */
export async function installCrds(kubeconfigPath: string, extraControllerDirs: readonly string[] = []): Promise<string[]> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const client = new KubeClient(kc);
  const crds = crdsOf(await loadControllers(extraControllerDirs)) as unknown as KubeObject[];
  for (const crd of crds) await applyObject(client, crd);
  return crds.map((crd) => crd.metadata.name ?? "");
}
