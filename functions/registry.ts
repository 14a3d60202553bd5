import type { Controller, EdgeChannel, HttpApi, Webhook } from "./kit/controller.ts";
import { ApiSpec, ChannelSpec, groupOf, kindKey, Manifest, RelatedObjects, WebhookSpec, type ControllerManifest, type Watch } from "../protocol/index.ts";

/** A webhook with its declaration parsed (defaults applied). */
export interface RegisteredWebhook {
  readonly spec: WebhookSpec;
  readonly review: Webhook["review"];
}

/** An API with its declaration parsed (defaults applied). */
export interface RegisteredApi {
  readonly spec: ApiSpec;
  readonly handle: HttpApi["handle"];
  readonly retryWindowSeconds?: number;
  readonly retriesConverge?: HttpApi["retriesConverge"];
}

/** A channel with its declaration parsed (defaults applied). */
export interface RegisteredChannel {
  readonly spec: ChannelSpec;
  readonly channel: EdgeChannel;
}

/** The controllers one Worker serves, looked up by name; built once per isolate. */
export interface Registry {
  controller(name: string): Controller | undefined;
  webhook(name: string): RegisteredWebhook | undefined;
  api(name: string): RegisteredApi | undefined;
  channel(name: string): RegisteredChannel | undefined;
  readonly manifest: Manifest;
}

/** A controller's declarations as parsed specs. */
interface Parsed {
  readonly controller: Controller;
  readonly webhooks: RegisteredWebhook[];
  readonly apis: RegisteredApi[];
  readonly channels: RegisteredChannel[];
  /** A snapshot controller's related objects for every snapshot. */
  readonly related: RelatedObjects[];
}

function parse(controller: Controller): Parsed {
  const at = (what: string): string => `controller ${controller.name}: ${what}`;
  const webhooks = (controller.webhooks ?? []).map((webhook) => ({ spec: parseOrThrow(WebhookSpec, webhook.spec, at(`webhook ${webhook.spec.name}`)), review: webhook.review.bind(webhook) }));
  const apis = (controller.apis ?? []).map((api) => ({ spec: parseOrThrow(ApiSpec, api.spec, at(`API ${api.spec.name}`)), handle: api.handle.bind(api), ...retryWindow(api), ...(api.retriesConverge ? { retriesConverge: api.retriesConverge } : {}) }));
  const channels = (controller.channels ?? []).map((channel) => ({ spec: parseOrThrow(ChannelSpec, channel.spec, at(`channel ${channel.spec.name}`)), channel }));
  const related = controller.delivery === "snapshot" ? (controller.related ?? []).map((entry, i) => parseOrThrow(RelatedObjects, entry, at(`related[${i}]`))) : [];
  return { controller, webhooks, apis, channels, related };
}

/** An API's retry window, when it declares a sane one (1–300 s). */
function retryWindow(api: HttpApi): { retryWindowSeconds?: number } {
  const seconds = api.retryWindowSeconds;
  if (seconds === undefined) return {};
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 300) throw new Error(`API ${api.spec.name}: retryWindowSeconds must be a whole number of seconds from 1 to 300`);
  return { retryWindowSeconds: seconds };
}

function parseOrThrow<T>(schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } } }, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Error(`${what}: ${issue?.path.map(String).join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
}

function manifestEntry({ controller, webhooks, apis, channels, related }: Parsed): ControllerManifest {
  return {
    name: controller.name,
    delivery: controller.delivery,
    ...(controller.delivery === "snapshot" ? { parent: controller.parent } : {}),
    watches: [...controller.watches],
    webhooks: webhooks.map((webhook) => webhook.spec),
    apis: apis.map((api) => api.spec),
    channels: channels.map((channel) => channel.spec),
    permissions: [...controller.permissions],
    related,
  };
}

/**
 * The relay attaches `related` objects from its informer caches, which exist only for
 * watched kinds: a webhook or API relating a kind its controller does not watch (without
 * selectors) would silently see nothing. Narrowing by namespace needs a namespaced kind.
 * A webhook's `forwardWhen` objects are found in those caches too (one never found would
 * keep every request from the webhook).
 */
function checkRelated({ controller, webhooks, apis, related: snapshotRelated }: Parsed): void {
  const watched = new Map(controller.watches.filter((w) => !w.labelSelector && !w.fieldSelector).map((w) => [kindKey(w), w] as const));
  const users = [...webhooks, ...apis, { spec: { name: "its snapshots", related: snapshotRelated } }];
  const gates = webhooks.map(({ spec }) => ({ spec: { name: `${spec.name} (forwardWhen)`, related: (spec.forwardWhen ?? []).flatMap((condition) => ("found" in condition ? [condition.found] : [])) } }));
  const uses = [...users, ...gates].flatMap((user) => user.spec.related.map((related) => [user.spec.name, related] as const));
  for (const [user, related] of uses) {
    const watch = watched.get(kindKey(related));
    if (!watch) throw new Error(`${user} of controller ${controller.name} relates ${kindKey(related)}, which the controller does not watch without selectors`);
    if (related.sameNamespace && !watch.namespaced) throw new Error(`${user} of controller ${controller.name} narrows ${kindKey(related)} by namespace, but it is cluster-scoped: use a selector or namedBy`);
    // The objects a narrowing reads names from come from a cache too.
    for (const source of [related.sharingLabels?.kind, related.ownerOf?.kind]) {
      if (source && !watched.has(kindKey(source))) throw new Error(`${user} of controller ${controller.name} narrows ${kindKey(related)} through ${kindKey(source)}, which the controller does not watch without selectors`);
    }
    assertNarrowed(user, controller.name, related);
  }
}

function assertNarrowed(user: string, controller: string, related: RelatedObjects): void {
  if (!related.sameNamespace && !related.selector && !related.namedBy && !related.named && !related.sharingLabels && !related.ownerOf) throw new Error(`${user} of controller ${controller} does not say how ${kindKey(related)} is narrowed`);
}

/** Every watched kind must be readable: the relay's ClusterRole holds only what is declared. */
function checkPermissions(controller: Controller): void {
  const readable = new Set(controller.permissions.filter((p) => p.access.includes("read")).map((p) => `${p.group}|${p.resource}`));
  const unread = controller.watches.find((watch: Watch) => !readable.has(`${groupOf(watch.apiVersion)}|${watch.resource}`));
  if (unread) throw new Error(`controller ${controller.name} watches ${unread.resource} (${unread.apiVersion}) but declares no read permission for it`);
}

function indexApis(apis: readonly RegisteredApi[]): Map<string, RegisteredApi> {
  const byName = new Map<string, RegisteredApi>();
  const prefixes = new Map<string, string>();
  for (const api of apis) {
    if (byName.has(api.spec.name)) throw new Error(`two APIs are named ${api.spec.name}`);
    if (overlaps("/admission", api.spec.pathPrefix)) throw new Error(`API ${api.spec.name} may not serve ${api.spec.pathPrefix}: the front serves admission there`);
    const clash = [...prefixes].find(([prefix]) => overlaps(prefix, api.spec.pathPrefix));
    if (clash) throw new Error(`APIs ${clash[1]} and ${api.spec.name} serve overlapping paths`);
    byName.set(api.spec.name, api);
    prefixes.set(api.spec.pathPrefix, api.spec.name);
  }
  return byName;
}

/** Channels by name; two with one name, endpoint key or port are a programming error. */
function indexChannels(channels: readonly RegisteredChannel[]): Map<string, RegisteredChannel> {
  const byName = new Map<string, RegisteredChannel>();
  for (const entry of channels) {
    const { name, endpoint, port } = entry.spec;
    const clash = [...byName.values()].find((other) => other.spec.name === name || other.spec.endpoint === endpoint || other.spec.port === port);
    if (clash) throw new Error(`channels ${clash.spec.name} and ${name} share a name, an endpoint key or a port`);
    byName.set(name, entry);
  }
  return byName;
}

function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/**
 * Indexes controllers, webhooks and APIs by name. Duplicate names (two folders claiming
 * one name), overlapping API paths, related kinds not watched or not narrowed, and
 * watches without a read permission are programming errors, reported at start rather
 * than by surprise.
 */
export function createRegistry(controllers: readonly Controller[]): Registry {
  const byName = new Map<string, Controller>();
  const webhooks = new Map<string, RegisteredWebhook>();
  const parsed = controllers.map(parse);
  for (const entry of parsed) {
    const { controller } = entry;
    if (byName.has(controller.name)) throw new Error(`two controllers are named ${controller.name}`);
    byName.set(controller.name, controller);
    checkRelated(entry);
    checkPermissions(controller);
    for (const webhook of entry.webhooks) {
      if (webhooks.has(webhook.spec.name)) throw new Error(`two webhooks are named ${webhook.spec.name}`);
      webhooks.set(webhook.spec.name, webhook);
    }
  }
  const apis = indexApis(parsed.flatMap((entry) => entry.apis));
  const channels = indexChannels(parsed.flatMap((entry) => entry.channels));
  const manifest = Manifest.parse({ version: "v1", controllers: parsed.map(manifestEntry) });
  return {
    controller: (name) => byName.get(name),
    webhook: (name) => webhooks.get(name),
    api: (name) => apis.get(name),
    channel: (name) => channels.get(name),
    manifest,
  };
}
