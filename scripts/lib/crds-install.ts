/**
 * Applies the CRDs of every controller's custom resources to a cluster, through the
 * same client the relay uses: create when absent, replace (keeping resourceVersion) when
 * present. `npm start` uses it on the sim and on a real cluster alike.
 */
import { KubeConfig } from "@kubernetes/client-node";
import { crdOf, uniqueResources } from "../../functions/crd/generate.ts";
import { KubeClient, KubeError } from "../../relay/kube/client.ts";
import { loadControllers } from "./controllers.ts";

const CRD = { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" } as const;

/** Installs (or updates) the CRDs; returns their names. */
export async function installCrds(kubeconfigPath: string, extraControllerDirs: readonly string[] = []): Promise<string[]> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const client = new KubeClient(kc);
  const controllers = await loadControllers(extraControllerDirs);
  const names: string[] = [];
  for (const resource of uniqueResources(controllers.flatMap((c) => c.resources ?? []))) {
    const crd = crdOf(resource) as { metadata: { name: string; resourceVersion?: string } };
    await applyObject(client, crd);
    names.push(crd.metadata.name);
  }
  return names;
}

async function applyObject(client: KubeClient, crd: { metadata: { name: string; resourceVersion?: string } }): Promise<void> {
  const path = await client.path(CRD, undefined, crd.metadata.name);
  try {
    const existing = (await client.request("GET", path)) as { metadata: { resourceVersion: string } };
    await client.request("PUT", path, { body: { ...crd, metadata: { ...crd.metadata, resourceVersion: existing.metadata.resourceVersion } } });
  } catch (error) {
    if (!(error instanceof KubeError && error.status === 404)) throw error;
    await client.request("POST", await client.path(CRD, undefined), { body: crd });
  }
}
