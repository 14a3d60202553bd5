/**
 * Watch streams: newline-delimited `{"type", "object"}` events from a resourceVersion,
 * filtered by namespace and selectors (an object leaving the selection is a DELETED),
 * with bookmarks, a timeout, 410 Gone past the event history, and 504
 * ResourceVersionTooLarge beyond the store's resourceVersion.
 */
import type { ServerResponse } from "node:http";
import type { KubeObject } from "../../protocol/index.ts";
import { matchesFieldRequirements, matchesLabelRequirements, type FieldRequirement, type LabelRequirement } from "../../protocol/kube/selectors.ts";
import type { SimCluster } from "../api/sim-cluster.ts";
import { gone, tooLargeResourceVersion } from "../pipeline/errors.ts";
import { storageKey, type ResourceType } from "../registry/resource.ts";
import type { Stored, StoreEvent } from "../store/store.ts";
import { toTable, type IncludeObject } from "./table.ts";
import type { SimFaults } from "../faults/faults.ts";

/** What one watch request asked for. */
export interface WatchRequest {
  readonly resource: ResourceType;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly labels: readonly LabelRequirement[];
  readonly fields: readonly FieldRequirement[];
  /** "" or "0": start with the current state as ADDED events. */
  readonly resourceVersion: string;
  readonly bookmarks: boolean;
  /**
   * `sendInitialEvents` (absent: undefined). True: the current state as ADDED events, then
   * (with bookmarks) a BOOKMARK annotated `k8s.io/initial-events-end`, whatever the
   * resourceVersion; false: changes only. Absent: the current state only from "" or "0".
   */
  readonly sendInitialEvents?: boolean | undefined;
  readonly resourceVersionMatch?: string | undefined;
  readonly timeoutSeconds: number | undefined;
  /** false, or a Table of what each event's row carries. */
  readonly table: false | IncludeObject;
  /** Milliseconds between bookmarks. */
  readonly bookmarkIntervalMs: number;
}

/**
 * Streams events to `response` until the client goes, the timeout passes or `stop` is
 * called (`stop(true)`: after an ERROR event of 410 Gone, as faults end watches). With
 * `faults`, events may be sent twice or out of order.
 */
export function serveWatch(cluster: SimCluster, request: WatchRequest, response: ServerResponse, onClose: (stop: (gone?: boolean) => void) => void, faults?: SimFaults): void {
  const { resource } = request;
  const key = storageKey(resource);
  const matches = (object: KubeObject): boolean =>
    (request.namespace === undefined || object.metadata.namespace === request.namespace) &&
    (request.name === undefined || object.metadata.name === request.name) &&
    matchesLabelRequirements(object.metadata.labels, request.labels) &&
    matchesFieldRequirements(object, request.fields);
  let first = true;
  const line = (type: string, stored: Stored): string => {
    if (!request.table) return `{"type":"${type}","object":${stored.json}}\n`;
    const table = toTable(resource, [stored.object], stored.object.metadata.resourceVersion ?? "", new Date(), first, request.table);
    first = false;
    return `${JSON.stringify({ type, object: table })}\n`;
  };
  const shaper = faults?.shaper((text) => response.write(text));
  const write = (type: string, stored: Stored): void => {
    if (shaper) shaper.event(line(type, stored), `${stored.object.metadata.namespace ?? ""}/${stored.object.metadata.name ?? ""}`);
    else response.write(line(type, stored));
  };
  const send = (event: StoreEvent): void => {
    if (event.resource !== key) return;
    const now = matches(event.stored.object);
    const before = event.previous !== undefined && matches(event.previous.object);
    if (event.type === "DELETED") {
      if (now || before) write("DELETED", event.stored);
    } else if (now) write(before ? "MODIFIED" : "ADDED", event.stored);
    else if (before) write("DELETED", event.stored);
  };

  const initial = request.sendInitialEvents ?? (request.resourceVersion === "" || request.resourceVersion === "0");
  response.writeHead(200, { "content-type": "application/json", "cache-control": "no-cache, private", "transfer-encoding": "chunked" });
  response.flushHeaders();
  const rv = request.resourceVersion;
  if (initial) {
    const current = cluster.store.list(key, resource.namespaced ? request.namespace : undefined).filter((s) => matches(s.object));
    for (const stored of current) write("ADDED", stored);
    if (request.sendInitialEvents && request.bookmarks) response.write(`${JSON.stringify({ type: "BOOKMARK", object: bookmarkObject(resource, cluster.store.resourceVersion, true) })}\n`);
  } else if (rv !== "" && rv !== "0") {
    // A resourceVersion beyond the store's own means the store went back in time (restored
    // from an older backup): resuming there would wait for events that already happened
    // elsewhere, so the client is told to relist, as kube-apiserver does.
    if (Number(rv) > cluster.store.resourceVersion) {
      response.end(`${JSON.stringify({ type: "ERROR", object: tooLargeResourceVersion(Number(rv), cluster.store.resourceVersion).toStatus() })}\n`);
      return;
    }
    const since = cluster.store.history.since(Number(rv));
    if (since === "gone" || Number.isNaN(Number(rv))) {
      response.end(`${JSON.stringify({ type: "ERROR", object: gone(rv, cluster.store.history.compactedThrough).toStatus() })}\n`);
      return;
    }
    for (const event of since) send(event);
  }
  const unsubscribe = cluster.store.subscribe(send);
  const bookmark = request.bookmarks
    ? setInterval(() => {
        const object = bookmarkObject(resource, cluster.store.resourceVersion, false);
        // A held event goes first: the bookmark's resourceVersion is past it.
        shaper?.flush();
        response.write(`${JSON.stringify({ type: "BOOKMARK", object })}\n`);
      }, request.bookmarkIntervalMs)
    : undefined;
  const timeout = request.timeoutSeconds ? setTimeout(() => stop(), request.timeoutSeconds * 1000) : undefined;
  let stopped = false;
  const stop = (goneNow = false): void => {
    if (stopped) return;
    stopped = true;
    unsubscribe();
    if (bookmark) clearInterval(bookmark);
    if (timeout) clearTimeout(timeout);
    shaper?.flush();
    if (goneNow) response.end(`${JSON.stringify({ type: "ERROR", object: gone(String(cluster.store.resourceVersion)).toStatus() })}\n`);
    else response.end();
  };
  response.on("close", () => stop());
  onClose(stop);
}

/** A BOOKMARK's object: the kind, and the resourceVersion reached; the first after the initial events says so. */
function bookmarkObject(resource: ResourceType, resourceVersion: number, initialEventsEnd: boolean): unknown {
  const metadata = { ...(initialEventsEnd ? { annotations: { "k8s.io/initial-events-end": "true" } } : {}), resourceVersion: String(resourceVersion) };
  return { kind: resource.kind, apiVersion: resource.group ? `${resource.group}/${resource.version}` : resource.version, metadata };
}
