import type { Controller, HttpApi, Webhook } from "./kit/controller.ts";
import { kindKey, Manifest, type ControllerManifest } from "../protocol/index.ts";

/** The controllers one Worker serves, looked up by name; built once per isolate. */
export interface Registry {
  controller(name: string): Controller | undefined;
  webhook(name: string): Webhook | undefined;
  api(name: string): HttpApi | undefined;
  readonly manifest: Manifest;
}

function manifestEntry(controller: Controller): ControllerManifest {
  return {
    name: controller.name,
    delivery: controller.delivery,
    ...(controller.delivery === "snapshot" ? { parent: controller.parent } : {}),
    watches: [...controller.watches],
    webhooks: (controller.webhooks ?? []).map((webhook) => webhook.spec),
    apis: (controller.apis ?? []).map((api) => api.spec),
  };
}

/**
 * The relay attaches `related` objects from its informer caches, which exist only for
 * watched kinds: a webhook or API relating a kind its controller does not watch (without
 * selectors) would silently see nothing.
 */
function checkRelated(controller: Controller): void {
  const watched = new Set(controller.watches.filter((w) => !w.labelSelector && !w.fieldSelector).map((w) => kindKey(w)));
  const uses = [...(controller.webhooks ?? []), ...(controller.apis ?? [])].flatMap((user) => user.spec.related.map((kind) => [user.spec.name, kindKey(kind)] as const));
  for (const [user, kind] of uses) {
    if (!watched.has(kind)) throw new Error(`${user} of controller ${controller.name} relates ${kind}, which the controller does not watch without selectors`);
  }
}

function indexApis(controllers: readonly Controller[]): Map<string, HttpApi> {
  const apis = new Map<string, HttpApi>();
  const prefixes = new Map<string, string>();
  for (const api of controllers.flatMap((controller) => controller.apis ?? [])) {
    if (apis.has(api.spec.name)) throw new Error(`two APIs are named ${api.spec.name}`);
    if (overlaps("/admission", api.spec.pathPrefix)) throw new Error(`API ${api.spec.name} may not serve ${api.spec.pathPrefix}: the front serves admission there`);
    const clash = [...prefixes].find(([prefix]) => overlaps(prefix, api.spec.pathPrefix));
    if (clash) throw new Error(`APIs ${clash[1]} and ${api.spec.name} serve overlapping paths`);
    apis.set(api.spec.name, api);
    prefixes.set(api.spec.pathPrefix, api.spec.name);
  }
  return apis;
}

function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/**
 * Indexes controllers, webhooks and APIs by name. Duplicate names (two folders claiming
 * one name) and overlapping API paths are programming errors, reported at start rather
 * than by surprise.
 */
export function createRegistry(controllers: readonly Controller[]): Registry {
  const byName = new Map<string, Controller>();
  const webhooks = new Map<string, Webhook>();
  for (const controller of controllers) {
    if (byName.has(controller.name)) throw new Error(`two controllers are named ${controller.name}`);
    byName.set(controller.name, controller);
    checkRelated(controller);
    for (const webhook of controller.webhooks ?? []) {
      if (webhooks.has(webhook.spec.name)) throw new Error(`two webhooks are named ${webhook.spec.name}`);
      webhooks.set(webhook.spec.name, webhook);
    }
  }
  const apis = indexApis(controllers);
  const manifest = Manifest.parse({ version: "v1", controllers: controllers.map(manifestEntry) });
  return {
    controller: (name) => byName.get(name),
    webhook: (name) => webhooks.get(name),
    api: (name) => apis.get(name),
    manifest,
  };
}
