/**
 * The sim's in-process `watch` over HTTP, for the benchmark code written against the sim
 * (`../self-heal.ts`): one watch of a kind, opened (from a list's resourceVersion) before
 * anyone subscribes, so that a subscription made synchronously, as on the sim, misses
 * nothing that happens after it. Events come as the API server sends them, a watch
 * delivery later than the sim's commit-time callbacks (the relay sees them so too).
 */
import { Watch, type KubeConfig } from "@kubernetes/client-node";
import type { KubeObject, TypeRef } from "../../../protocol/index.ts";
import { KubeClient } from "../../../relay/kube/client.ts";
import type { ClusterEvent } from "../../../sim/contract.ts";

/** An open watch of one kind that callbacks subscribe to. */
export interface WatchStream {
  readonly type: TypeRef;
  /** Calls `onEvent` with every event from now on; returns the unsubscribe. */
  subscribe(onEvent: (event: ClusterEvent) => void): () => void;
  close(): void;
}

const PHASES = new Set(["ADDED", "MODIFIED", "DELETED"]);

/**
 * Opens a watch of every object of `type` on the API server of `kc`, from the current
 * resourceVersion; resolves once the server has answered. A watch that ends (the server's
 * request timeout, the client's idle timeout, a dropped connection) is opened again from
 * the last resourceVersion seen, with backoff while it keeps ending in errors; one that
 * cannot be opened again, or that the server ends with an error event (410: its
 * resourceVersion is gone), stops the subscribers' callbacks: `failure()` says why.
 */
export async function openWatch(kc: KubeConfig, type: TypeRef): Promise<WatchStream & { failure(): Error | undefined }> {
  const client = new KubeClient(kc);
  const path = await client.path(type, undefined);
  const list = (await client.request("GET", path, { query: { limit: "1" } })) as { metadata?: { resourceVersion?: string } };
  let resourceVersion = list.metadata?.resourceVersion ?? "";
  const subscribers = new Set<(event: ClusterEvent) => void>();
  let closed = false;
  let failed: Error | undefined;
  let controller: AbortController | undefined;
  /** Watches ended by an error in a row: the next reopen waits longer. */
  let ended = 0;
  const fail = (error: unknown): void => {
    failed = error instanceof Error ? error : new Error(String(error));
    closed = true;
    controller?.abort();
  };
  const watch = new Watch(kc);
  const open = async (): Promise<void> => {
    controller = await watch.watch(
      path,
      { resourceVersion, allowWatchBookmarks: true },
      (phase, object: KubeObject) => {
        if (phase === "ERROR") return fail(new Error(`the watch of ${type.kind} ended: ${JSON.stringify(object)}`));
        resourceVersion = object.metadata.resourceVersion ?? resourceVersion;
        if (!PHASES.has(phase)) return;
        const event = { type: phase as ClusterEvent["type"], object: { ...object, apiVersion: type.apiVersion, kind: type.kind } };
        for (const onEvent of subscribers) onEvent(event);
      },
      (error: unknown) => {
        if (closed) return;
        // Ended by the server's request timeout or by the client's idle timeout (30 s
        // without a byte): neither loses anything, the next watch resumes from the last
        // resourceVersion. Only a watch that cannot be opened again is a failure.
        if (error !== null && error !== undefined) ended += 1;
        setTimeout(() => void open().then(() => (ended = 0), fail), ended > 0 ? Math.min(5_000, 100 * 2 ** ended) : 0);
      },
    );
  };
  await open();
  return {
    type,
    subscribe(onEvent) {
      subscribers.add(onEvent);
      return () => subscribers.delete(onEvent);
    },
    close() {
      closed = true;
      controller?.abort();
    },
    failure: () => failed,
  };
}
