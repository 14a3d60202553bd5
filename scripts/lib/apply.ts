/**
 * Create-or-replace of whole objects through the relay's client (what `kubectl apply`
 * does for objects this tool owns): POST when absent, PUT with the current
 * resourceVersion when present.
 */
import { StatusError, type KubeObject } from "../../protocol/index.ts";
import type { KubeClient } from "../../relay/kube/client.ts";

/** The object as the cluster has it now, or undefined. */
export async function readObject(client: KubeClient, object: KubeObject): Promise<KubeObject | undefined> {
  try {
    return (await client.request("GET", await client.path(object, object.metadata.namespace, object.metadata.name))) as KubeObject;
  } catch (error) {
    if (error instanceof StatusError && error.status === 404) return undefined;
    throw error;
  }
}

/** Creates or replaces `object`; returns "created" or "configured". */
export async function applyObject(client: KubeClient, object: KubeObject): Promise<"created" | "configured"> {
  const existing = await readObject(client, object);
  if (!existing) {
    await client.request("POST", await client.path(object, object.metadata.namespace), { body: object });
    return "created";
  }
  const body = { ...object, metadata: { ...object.metadata, resourceVersion: existing.metadata.resourceVersion } };
  await client.request("PUT", await client.path(object, object.metadata.namespace, object.metadata.name), { body });
  return "configured";
}
