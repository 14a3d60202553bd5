/**
 * The webhook configurations `install-relay` renders, pointed by `url` at a relay's TLS
 * front on this machine instead of at the relay Service (the sim, or an API server on
 * loopback: ADR 0019). Removed again when that relay stops, unless another front has
 * registered since: a configuration whose webhooks call nothing, with failurePolicy
 * Fail, would refuse every write it matches.
 */
import { StatusError, type KubeObject, type WebhookSpec } from "../../../protocol/index.ts";
import type { KubeClient } from "../../../relay/kube/client.ts";
import { applyObject, readObject } from "../apply.ts";
import { webhookConfigurations } from "./objects.ts";

/** Whether an API server at `server` can reach a front listening on 127.0.0.1 (it runs on this machine's loopback). */
export function onLoopback(server: string): boolean {
  const host = new URL(server).hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The configurations of `hooks` calling `frontUrl`, with `caPem` as their caBundle; never for `relayNamespace`'s own objects. */
export function localWebhookConfigurations(hooks: readonly WebhookSpec[], frontUrl: string, caPem: string, relayNamespace?: string): KubeObject[] {
  return webhookConfigurations(hooks, (hook) => ({ url: `${frontUrl}/admission/${hook.name}` }), caPem, relayNamespace);
}

/** Creates or updates the configurations; returns them. */
export async function registerLocalWebhooks(admin: KubeClient, hooks: readonly WebhookSpec[], frontUrl: string, caPem: string, relayNamespace?: string): Promise<KubeObject[]> {
  const objects = localWebhookConfigurations(hooks, frontUrl, caPem, relayNamespace);
  for (const object of objects) await applyObject(admin, object);
  return objects;
}

interface WebhookConfiguration extends KubeObject {
  webhooks?: { clientConfig?: { url?: string } }[];
}

/** Deletes those of `objects` whose webhooks still all call `frontUrl` (another front may have taken them over). */
export async function removeLocalWebhooks(admin: KubeClient, objects: readonly KubeObject[], frontUrl: string): Promise<void> {
  for (const object of objects) {
    const current = (await readObject(admin, object)) as WebhookConfiguration | undefined;
    if (!current || !(current.webhooks ?? []).every((hook) => hook.clientConfig?.url?.startsWith(`${frontUrl}/`) === true)) continue;
    const path = await admin.path(object, undefined, object.metadata.name);
    await admin.request("DELETE", path, { body: { kind: "DeleteOptions", apiVersion: "v1", preconditions: { uid: current.metadata.uid } } }).catch((error: unknown) => {
      if (!(error instanceof StatusError && (error.status === 404 || error.status === 409))) throw error;
    });
  }
}
