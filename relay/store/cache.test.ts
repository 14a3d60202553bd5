/**
 * A cache over a fake API server: its informer lists and watches (`watch/informer.ts`),
 * relists and resumes; the cache holds, counts and passes on each change.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { waitFor } from "../../cli/wait.ts";
import { StatusError, type KubeObject } from "../../protocol/index.ts";
import type { KubeClient } from "../kube/client.ts";
import type { RestartReason, WatchReporter } from "../watch/informer.ts";
import type { RelistCounts, RelistReason } from "../watch/relist.ts";
import { Cache, type CacheSubscriber } from "./cache.ts";

/** A fake API server of ConfigMaps: lists answered by the test, each watch request served by the next scripted behaviour. */
/** A list response. */
interface ObjectList {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly resourceVersion: string };
  readonly items: KubeObject[];
}

async function fakeApiServer(lists: ObjectList[], watches: ((response: ServerResponse) => void)[]): Promise<{ kc: KubeConfig; client: Pick<KubeClient, "path" | "request">; listed: () => number; watchQueries: URLSearchParams[]; close: () => Promise<void> }> {
  const watchQueries: URLSearchParams[] = [];
  let listCount = 0;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    watchQueries.push(url.searchParams);
    const behaviour = watches.shift();
    if (behaviour) behaviour(response);
    // Nothing scripted: hold the watch open, silent, until the test ends.
    else response.writeHead(200, { "content-type": "application/json" }).flushHeaders();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const kc = new KubeConfig();
  kc.loadFromOptions({ clusters: [{ name: "fake", server: `http://127.0.0.1:${port}`, skipTLSVerify: true }], users: [{ name: "u" }], contexts: [{ name: "c", cluster: "fake", user: "u" }], currentContext: "c" });
  const client: Pick<KubeClient, "path" | "request"> = {
    path: () => Promise.resolve("/api/v1/configmaps"),
    request: () => {
      const list = lists[Math.min(listCount, lists.length - 1)];
      listCount += 1;
      return Promise.resolve(structuredClone(list));
    },
  };
  return {
    kc,
    client,
    listed: () => listCount,
    watchQueries,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const CM = { apiVersion: "v1", kind: "ConfigMap", resource: "configmaps", namespaced: true, mapping: { by: "self" } } as const;
const configMap = (name: string, uid: string, rv: string, data: Record<string, string> = {}): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: "ns", name, uid, resourceVersion: rv }, data }) as KubeObject;
const list = (rv: string, items: KubeObject[]): ObjectList => ({ apiVersion: "v1", kind: "ConfigMapList", metadata: { resourceVersion: rv }, items });

interface Seen {
  readonly events: string[];
  readonly resyncs: string[];
  readonly restarts: string[];
  readonly errors: unknown[];
  readonly served: string[];
}

/** A cache's subscriber and its informer's reporter, writing down what they are told. */
class Recorder implements CacheSubscriber, WatchReporter {
  readonly seen: Seen = { events: [], resyncs: [], restarts: [], errors: [], served: [] };

  added(_cache: Cache, object: KubeObject, initial: boolean): void {
    this.#event("ADDED", object, initial, undefined);
  }

  modified(_cache: Cache, object: KubeObject, previous: KubeObject | undefined, initial: boolean): void {
    this.#event("MODIFIED", object, initial, previous);
  }

  deleted(_cache: Cache, object: KubeObject, initial: boolean): void {
    this.#event("DELETED", object, initial, undefined);
  }

  relisted(_informer: string, reason: RelistReason, changes: RelistCounts): void {
    this.seen.resyncs.push(`${reason} deleted=${changes.deleted} recreated=${changes.recreated}`);
  }

  restarted(_informer: string, reason: RestartReason): void {
    this.seen.restarts.push(reason);
  }

  failed(_informer: string, error: unknown): void {
    this.seen.errors.push(error);
  }

  notServed(_informer: string, retrySeconds: number): void {
    this.seen.served.push(`not served, again in ${retrySeconds}s`);
  }

  served(): void {
    this.seen.served.push("served");
  }

  #event(type: string, object: KubeObject, initial: boolean, previous: KubeObject | undefined): void {
    this.seen.events.push(`${initial ? "initial " : ""}${type} ${object.metadata.name ?? ""} uid=${object.metadata.uid ?? ""} rv=${object.metadata.resourceVersion ?? ""}${previous ? ` was rv=${previous.metadata.resourceVersion ?? ""}` : ""}`);
  }
}

/** Starts a cache of ConfigMaps on `api`, runs `check` with it and what its recorder saw, then stops both. */
async function withCache(api: Awaited<ReturnType<typeof fakeApiServer>>, options: { readonly silenceSeconds?: number; readonly notServedRetrySeconds?: number }, check: (cache: Cache, seen: Seen) => Promise<void>): Promise<void> {
  const recorder = new Recorder();
  const cache = new Cache(CM, recorder, undefined, options);
  try {
    await cache.start(api.kc, api.client, recorder);
    await check(cache, recorder.seen);
  } finally {
    await cache.stop();
    await api.close();
  }
}

test("a relist delivers deletions it missed with their last state, a recreated object as deleted then added, and nothing for what did not change", async () => {
  const gone = (response: ServerResponse): void => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(`${JSON.stringify({ type: "ERROR", object: { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Expired", code: 410 } })}\n`);
  };
  const api = await fakeApiServer(
    [
      list("10", [configMap("kept", "u1", "3"), configMap("deleted", "u2", "4", { last: "state" }), configMap("recreated", "u3", "5"), configMap("changed", "u5", "6")]),
      list("20", [configMap("kept", "u1", "3"), configMap("recreated", "u9", "15"), configMap("changed", "u5", "16"), configMap("new", "u4", "17")]),
    ],
    [gone],
  );
  await withCache(api, {}, async (cache, seen) => {
    await waitFor("the relist", () => seen.resyncs.length, (n) => n === 1);
    assert.deepEqual(seen.resyncs, ["expired deleted=1 recreated=1"]);
    assert.deepEqual(seen.events.filter((e) => !e.startsWith("initial")), ["DELETED deleted uid=u2 rv=4", "DELETED recreated uid=u3 rv=5", "ADDED recreated uid=u9 rv=15", "MODIFIED changed uid=u5 rv=16 was rv=6", "ADDED new uid=u4 rv=17"]);
    assert.deepEqual((cache.get("ns", "deleted") ?? null), null);
    assert.deepEqual(cache.list().map((o) => o.metadata.name).sort(), ["changed", "kept", "new", "recreated"]);
    assert.equal(cache.size, 4, "the count follows additions and deletions");
    await waitFor("the watch after the relist", () => api.watchQueries.length, (n) => n === 2);
    assert.equal(api.watchQueries[1]?.get("resourceVersion"), "20");
  });
});

test("a silent watch is ended after the silence bound and resumed from its resourceVersion, without a relist; bookmarks keep one alive", async () => {
  // First watch: silent (held open, nothing sent). Second: bookmarks every 50 ms for longer than the bound, then the server ends it.
  const bookmarks = (response: ServerResponse): void => {
    response.writeHead(200, { "content-type": "application/json" });
    let sent = 0;
    const timer = setInterval(() => {
      sent += 1;
      response.write(`${JSON.stringify({ type: "BOOKMARK", object: { kind: "ConfigMap", apiVersion: "v1", metadata: { resourceVersion: String(100 + sent) } } })}\n`);
      if (sent === 30) {
        clearInterval(timer);
        response.end();
      }
    }, 50);
    response.on("close", () => clearInterval(timer));
  };
  const api = await fakeApiServer([list("5", [configMap("a", "u1", "5")])], [(response) => response.writeHead(200, { "content-type": "application/json" }).flushHeaders(), bookmarks]);
  await withCache(api, { silenceSeconds: 1 }, async (cache, seen) => {
    await waitFor("the silent watch to be restarted", () => api.watchQueries.length, (n) => n >= 2);
    assert.deepEqual(seen.restarts, ["silent"]);
    assert.equal(api.watchQueries[1]?.get("resourceVersion"), "5", "resumed where it was");
    assert.equal(api.watchQueries[0]?.get("allowWatchBookmarks"), "true");
    assert.ok(Number(api.watchQueries[0]?.get("timeoutSeconds")) >= 1);
    await waitFor("the bookmarked watch to end and reconnect", () => api.watchQueries.length, (n) => n >= 3);
    assert.equal(api.watchQueries[2]?.get("resourceVersion"), "130", "resumed from the last bookmark");
    assert.deepEqual(seen.restarts, ["silent"], "a watch that sent bookmarks for longer than the bound was not taken for dead");
    assert.equal(api.listed(), 1, "never listed again");
    assert.deepEqual(seen.resyncs, []);
    assert.deepEqual(seen.errors, []);
  });
});

test("a watched change comes with the state it replaced (a child moved between parents wakes both)", async () => {
  const modified = (response: ServerResponse): void => {
    response.writeHead(200, { "content-type": "application/json" });
    response.write(`${JSON.stringify({ type: "MODIFIED", object: configMap("a", "u1", "7", { moved: "yes" }) })}\n`);
  };
  const api = await fakeApiServer([list("5", [configMap("a", "u1", "3")])], [modified]);
  await withCache(api, {}, async (cache, seen) => {
    await waitFor("the change", () => seen.events, (events) => events.some((e) => e.startsWith("MODIFIED")));
    assert.deepEqual(seen.events, ["initial ADDED a uid=u1 rv=3", "MODIFIED a uid=u1 rv=7 was rv=3"]);
  });
});

test("a kind the server does not serve (404 on its list) is said once, holds nothing, does not block the start, and is watched once it is served", async () => {
  const api = await fakeApiServer([list("7", [configMap("late", "u1", "7")])], []);
  let lists = 0;
  const notFoundFirst: typeof api.client = {
    path: api.client.path,
    request: (...args) => {
      lists += 1;
      // A CRD installed after the third look.
      return lists <= 3 ? Promise.reject(new StatusError(404, "NotFound", "the server could not find the requested resource")) : api.client.request(...args);
    },
  };
  await withCache({ ...api, client: notFoundFirst }, { notServedRetrySeconds: 0.05 }, async (cache, seen) => {
    assert.equal(cache.synced, true, "the start resolved: nothing to wait for");
    assert.deepEqual(seen.served, ["not served, again in 0.05s"]);
    await waitFor("the kind served", () => cache.list().map((o) => o.metadata.name), (names) => names.length === 1);
    assert.deepEqual(seen.served, ["not served, again in 0.05s", "served"], "said once, then served");
    assert.deepEqual(seen.errors, [], "no watch error for each look");
    assert.deepEqual(seen.events, ["ADDED late uid=u1 rv=7"]);
  });
});
