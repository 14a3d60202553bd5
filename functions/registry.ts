import type { Controller, Webhook } from "./controller.ts";
import { Manifest, type ControllerManifest } from "./protocol/index.ts";

/** The controllers one Worker serves, looked up by name; built once per isolate. */
export interface Registry {
  controller(name: string): Controller | undefined;
  webhook(name: string): Webhook | undefined;
  readonly manifest: Manifest;
}

function manifestEntry(controller: Controller): ControllerManifest {
  return {
    name: controller.name,
    delivery: controller.delivery,
    ...(controller.delivery === "snapshot" ? { parent: controller.parent } : {}),
    watches: [...controller.watches],
    webhooks: (controller.webhooks ?? []).map((webhook) => webhook.spec),
  };
}

/**
 * Indexes controllers by name and webhooks by name. Duplicate names are a programming
 * error (two folders claiming one name), reported at start rather than by surprise.
 */
export function createRegistry(controllers: readonly Controller[]): Registry {
  const byName = new Map<string, Controller>();
  const webhooks = new Map<string, Webhook>();
  for (const controller of controllers) {
    if (byName.has(controller.name)) throw new Error(`two controllers are named ${controller.name}`);
    byName.set(controller.name, controller);
    for (const webhook of controller.webhooks ?? []) {
      if (webhooks.has(webhook.spec.name)) throw new Error(`two webhooks are named ${webhook.spec.name}`);
      webhooks.set(webhook.spec.name, webhook);
    }
  }
  const manifest = Manifest.parse({ version: "v1", controllers: controllers.map(manifestEntry) });
  return {
    controller: (name) => byName.get(name),
    webhook: (name) => webhooks.get(name),
    manifest,
  };
}
