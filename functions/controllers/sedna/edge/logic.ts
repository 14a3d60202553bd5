/**
 * The Sedna edge channel's state machine over SQL (tested in Node; the Durable Object in
 * `durable.ts` runs it over its own storage, one call per transaction): watch events
 * update the view, and the keys whose holders may have changed are set in the kit's
 * channel store, which queues the insert and delete frames; connects, feed reads and
 * frames from the LocalControllers go through the same store.
 */
import type { ChannelFeed, ChannelReceive, EventBatch, KubeObject, WatchEvent } from "../../../../protocol/index.ts";
import { ChannelStore, type FeedAck } from "../../../kit/channel/store.ts";
import type { Sql } from "../../../kit/sql.ts";
import { channelKey, decodeFrame, framesOf } from "./core/frames.ts";
import { receive, type Reply } from "./core/status.ts";
import { isEdgeKind, targets, workerPod, type EdgeKind } from "./core/targets.ts";
import { EdgeView, type ViewedObject } from "./view.ts";

/**
 * A refused frame's Warning Event on an object is recorded at most once in this long per
 * node, object and reason: an LC that repeats a bad report (every few seconds, as workers
 * report) must not flood the API server with Events; the relay still counts every refusal.
 */
export const WARNING_INTERVAL_MS = 60_000;

/**
 * The largest insert frame sent (characters; base64 JSON is ASCII): a Durable Object's
 * SQLite holds at most 2 MB in one value. An object whose frame is larger (a JSON of more
 * than about 1.1 MB) is held nowhere, said in the log each time it changes, and the nodes
 * that held it are sent its delete: refused, not half-sent.
 */
export const MAX_INSERT_FRAME_CHARS = 1_500_000;

/** How many (node, object, reason) warning times are remembered; the oldest go first. */
const WARNED_LIMIT = 10_000;

/** The keys of a namespace to set again: some by name, and every Model's when a job, service or pod changed. */
interface Dirty {
  readonly keys: Set<string>;
  models: boolean;
}

/** The namespaces a batch touched. */
type Touched = Map<string, Dirty>;

function touch(touched: Touched, namespace: string, key: string | undefined, models: boolean): void {
  const dirty = touched.get(namespace) ?? { keys: new Set<string>(), models: false };
  if (key !== undefined) dirty.keys.add(key);
  dirty.models ||= models;
  touched.set(namespace, dirty);
}

function keyOf(object: ViewedObject): string {
  return channelKey(object.kind, object.namespace, object.name);
}

/** The edge channel of the Sedna family: the view, the channel store, and what connects them. */
export class SednaEdgeLogic {
  readonly #view: EdgeView;
  readonly #channel: ChannelStore;

  /** When each (node, object, reason) last had its Warning Event, ms; in memory: a restart only lets one more through. */
  readonly #warned = new Map<string, number>();

  constructor(sql: Sql) {
    this.#view = new EdgeView(sql);
    this.#channel = new ChannelStore(sql);
  }

  /**
   * Takes a batch of watch events; answers how many frames it queued. A relist's batches
   * only fill the view; its last sets every key (and removes the keys of objects it did
   * not list), so a half-received list never sends a node a delete.
   */
  apply(batch: EventBatch): number {
    if (batch.relist) this.#view.beginList();
    const touched: Touched = new Map();
    let appended = 0;
    for (const event of batch.events) appended += this.#event(event, touched);
    if (!this.#view.listing()) return appended + this.#sync(touched);
    if (batch.partialList) return appended;
    for (const gone of this.#view.endList()) appended += this.#channel.remove(keyOf(gone));
    return appended + this.#syncAll();
  }

  /** A node's LC connected: its whole state is queued. */
  connect(peer: string): { from: string; appended: number } {
    return this.#channel.connect(peer);
  }

  /** Acknowledges and answers the frames after the cursor (no waiting: the object waits). */
  feed(ack: FeedAck): ChannelFeed {
    return this.#channel.feed(ack);
  }

  /** The frames after `cursor`, without acknowledging anything. */
  frames(cursor: string): ChannelFeed {
    const page = this.#channel.page(Number(cursor));
    return { cursor: page.frames.at(-1)?.seq ?? cursor, ...page };
  }

  /** A frame a node's LC sent: the answer, validated against what was sent to that node (a repeated refusal's Event held back). */
  receive(request: ChannelReceive): Reply {
    const reply = receive(decodeFrame(request.data), {
      peer: request.peer,
      now: request.now,
      find: (kind, namespace, name) => this.#view.find(kind, namespace, name),
      sentToPeer: (key) => this.#channel.wasSentTo(request.peer, key),
    });
    return reply.accepted ? reply : this.#throttled(reply, request);
  }

  /** The refusal without its Warning Event when the same one was recorded within {@link WARNING_INTERVAL_MS}. */
  #throttled(reply: Reply, request: ChannelReceive): Reply {
    const warning = reply.actions.find((action) => action.type === "event");
    if (!warning) return reply;
    const key = `${request.peer}|${reply.reason ?? ""}|${warning.target.kind}/${warning.target.namespace ?? ""}/${warning.target.name}`;
    const now = Date.parse(request.now);
    const last = this.#warned.get(key);
    if (last !== undefined && now - last < WARNING_INTERVAL_MS) return { ...reply, actions: reply.actions.filter((action) => action !== warning) };
    this.#warned.delete(key);
    this.#warned.set(key, now);
    if (this.#warned.size > WARNED_LIMIT) this.#warned.delete(this.#warned.keys().next().value ?? "");
    return reply;
  }

  /** How much the channel holds (tests, inspection). */
  counts(): ReturnType<ChannelStore["counts"]> {
    return this.#channel.counts();
  }

  /** One event into the view; what it makes dirty into `touched` (nothing while listing: the list's end sets every key). */
  #event(event: WatchEvent, touched: Touched): number {
    const kind = event.kind.slice(0, event.kind.indexOf("."));
    const { object } = event;
    const namespace = object.metadata.namespace ?? "";
    const listing = this.#view.listing();
    if (kind === "Pod") {
      const uid = object.metadata.uid ?? "";
      const worker = event.type === "DELETED" ? undefined : workerPod(object);
      const owner = worker ? worker.ownerUid : this.#view.deletePod(uid);
      const changed = worker ? this.#view.putPod(uid, namespace, worker) : owner !== undefined;
      const parent = owner === undefined || !changed ? undefined : this.#view.byUid(owner);
      if (!listing && parent) touch(touched, namespace, keyOf(parent), true);
      return 0;
    }
    if (!isEdgeKind(kind)) return 0;
    const name = object.metadata.name ?? "";
    const key = channelKey(kind, namespace, name);
    const workload = kind === "FederatedLearningJob" || kind === "JointInferenceService";
    if (event.type === "DELETED") {
      this.#view.deleteObject(kind, namespace, name);
      if (workload && !listing) touch(touched, namespace, undefined, true);
      return this.#channel.remove(key);
    }
    this.#view.putObject({ ...object, kind });
    if (!listing) touch(touched, namespace, key, workload);
    return 0;
  }

  /** Sets the dirty keys of each touched namespace. */
  #sync(touched: Touched): number {
    let appended = 0;
    for (const [namespace, dirty] of touched) {
      for (const target of targets(this.#view.namespace(namespace))) {
        const kind = target.object.kind as EdgeKind;
        const key = channelKey(kind, namespace, target.object.metadata.name ?? "");
        if (dirty.keys.has(key) || (dirty.models && kind === "Model")) appended += this.#set(key, target.object, target.nodes);
      }
    }
    return appended;
  }

  /** Sets a key's frames and nodes in the channel, unless its insert frame is too large to store. */
  #set(key: string, object: KubeObject, nodes: readonly string[]): number {
    const frames = framesOf(object);
    if (frames.insert.length <= MAX_INSERT_FRAME_CHARS || nodes.length === 0) return this.#channel.set(key, frames, nodes);
    console.warn(`sedna-edge: ${key} is not sent to ${nodes.join(", ")}: its frame of ${frames.insert.length} characters is over ${MAX_INSERT_FRAME_CHARS}`);
    return this.#channel.set(key, frames, []);
  }

  /** Sets every key of the view, and removes the channel's keys of objects it no longer has. */
  #syncAll(): number {
    const seen = new Set<string>();
    let appended = 0;
    for (const namespace of this.#view.namespaces()) {
      for (const target of targets(this.#view.namespace(namespace))) {
        const key = channelKey(target.object.kind, namespace, target.object.metadata.name ?? "");
        seen.add(key);
        appended += this.#set(key, target.object, target.nodes);
      }
    }
    for (const key of this.#channel.keys()) if (!seen.has(key)) appended += this.#channel.remove(key);
    return appended;
  }
}
