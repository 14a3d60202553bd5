/**
 * The durable state of an edge channel (ADR 0028) over a Durable Object's SQLite, for any
 * family: what each peer must hold, the removals it may still hold, and the feed of
 * frames the relay writes to the peers' sockets. Keys and frames are opaque text here: a
 * family decides what a key names, what its frames say and which peers hold it.
 *
 * - `channel_keys`: the frames of every key some peer holds (an insert carrying its
 *   content, the delete that removes it) and the content's digest.
 * - `channel_holds`: (peer, key) → the digest the peer was last sent.
 * - `channel_tombstones`: (peer, key) removed from the peer whose delete frame (`seq`) is
 *   not yet confirmed written to its socket; sent again on its next connect.
 * - `channel_log`: the feed, one row per frame, global sequence order.
 *
 * Limits, none applied silently: a feed page is at most {@link FEED_PAGE_FRAMES} frames and
 * about {@link FEED_PAGE_BYTES} bytes (a single larger frame goes alone, never split nor
 * dropped); the log keeps every frame the relay has not acknowledged (its size is
 * {@link ChannelStore.counts}); a connect queues the peer's whole state at once.
 */
import type { ChannelDelivered, ChannelFeed, ChannelFrame } from "../../../protocol/index.ts";
import { fnv1a64 } from "../hash.ts";
import type { Sql } from "../sql.ts";
import { MetaValues } from "../sql-meta.ts";

/** Most frames one feed answer carries. */
export const FEED_PAGE_FRAMES = 500;

/** About the most bytes of frame data one feed answer carries (the first frame always goes, whatever its size). */
export const FEED_PAGE_BYTES = 4 * 1024 * 1024;

/** The two frames of a key: the one that gives a peer its content, the one that takes it away. */
export interface KeyFrames {
  readonly insert: string;
  readonly delete: string;
}

/** How many rows each table holds (for metrics, tests and limits). */
export interface ChannelCounts {
  readonly keys: number;
  readonly holds: number;
  readonly tombstones: number;
  readonly log: number;
}

/** A feed request as the store takes it: the acknowledged cursor and the completed writes. */
export interface FeedAck {
  readonly cursor: string;
  readonly delivered: readonly ChannelDelivered[];
}

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS channel_keys (key TEXT PRIMARY KEY, digest TEXT NOT NULL, insert_frame TEXT NOT NULL, delete_frame TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS channel_holds (peer TEXT NOT NULL, key TEXT NOT NULL, digest TEXT NOT NULL, PRIMARY KEY (peer, key))",
  "CREATE INDEX IF NOT EXISTS channel_holds_key ON channel_holds (key)",
  "CREATE TABLE IF NOT EXISTS channel_tombstones (peer TEXT NOT NULL, key TEXT NOT NULL, seq INTEGER NOT NULL, delete_frame TEXT NOT NULL, PRIMARY KEY (peer, key))",
  "CREATE TABLE IF NOT EXISTS channel_log (seq INTEGER PRIMARY KEY, peer TEXT NOT NULL, data TEXT NOT NULL)",
  "CREATE INDEX IF NOT EXISTS channel_log_peer ON channel_log (peer)",
];

/** An edge channel's holds, tombstones and feed. Every method is a few statements; the caller runs them in a transaction. */
export class ChannelStore {
  readonly #sql: Sql;

  /** `next`: the next sequence to assign, kept apart from the log so an acknowledged (deleted) tail never reuses a number. */
  readonly #meta: MetaValues;

  constructor(sql: Sql) {
    this.#sql = sql;
    for (const statement of SCHEMA) sql.exec(statement);
    this.#meta = new MetaValues(sql, "channel_meta");
  }

  /**
   * Sets a key's frames and the peers that must hold it: a peer that does not hold this
   * content (new to the key, or the content changed) is sent the insert; a peer that held
   * it and is no longer targeted is sent the delete and keeps a tombstone until that is
   * written to its socket; an unchanged peer is sent nothing. Returns the frames appended.
   */
  set(key: string, frames: KeyFrames, peers: readonly string[]): number {
    const targets = new Set(peers);
    const digest = fnv1a64(frames.insert).toString(16);
    const held = new Map(this.#sql.exec<{ peer: string; digest: string }>("SELECT peer, digest FROM channel_holds WHERE key = ?", key).toArray().map((row) => [row.peer, row.digest]));
    let appended = 0;
    for (const [peer] of held) {
      if (targets.has(peer)) continue;
      this.#drop(peer, key, frames.delete);
      appended++;
    }
    for (const peer of [...targets].sort()) {
      if (held.get(peer) === digest) continue;
      this.#append(peer, frames.insert);
      this.#sql.exec("INSERT INTO channel_holds (peer, key, digest) VALUES (?, ?, ?) ON CONFLICT (peer, key) DO UPDATE SET digest = excluded.digest", peer, key, digest);
      this.#sql.exec("DELETE FROM channel_tombstones WHERE peer = ? AND key = ?", peer, key);
      appended++;
    }
    if (targets.size === 0) this.#sql.exec("DELETE FROM channel_keys WHERE key = ?", key);
    else this.#sql.exec("INSERT INTO channel_keys (key, digest, insert_frame, delete_frame) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET digest = excluded.digest, insert_frame = excluded.insert_frame, delete_frame = excluded.delete_frame", key, digest, frames.insert, frames.delete);
    return appended;
  }

  /** Removes a key from every peer that holds it (its last delete frame, unless `deleteFrame` replaces it). Returns the frames appended. */
  remove(key: string, deleteFrame?: string): number {
    const stored = this.#sql.exec<{ delete_frame: string }>("SELECT delete_frame FROM channel_keys WHERE key = ?", key).toArray()[0];
    const frame = deleteFrame ?? stored?.delete_frame;
    const peers = this.#sql.exec<{ peer: string }>("SELECT peer FROM channel_holds WHERE key = ? ORDER BY peer", key).toArray();
    if (frame !== undefined) for (const { peer } of peers) this.#drop(peer, key, frame);
    this.#sql.exec("DELETE FROM channel_holds WHERE key = ?", key);
    this.#sql.exec("DELETE FROM channel_keys WHERE key = ?", key);
    return frame === undefined ? 0 : peers.length;
  }

  /**
   * A peer (re)connected: its earlier unsent frames are superseded (dropped from the log),
   * and its whole state is appended: an insert of every key it holds, a delete of every
   * tombstone (whose sequence moves to that delete). Answers the sequence it starts at
   * (the next one when it has nothing).
   */
  connect(peer: string): { from: string; appended: number } {
    this.#sql.exec("DELETE FROM channel_log WHERE peer = ?", peer);
    const from = this.#next();
    const inserts = this.#sql.exec<{ insert_frame: string }>("SELECT k.insert_frame FROM channel_holds h JOIN channel_keys k ON k.key = h.key WHERE h.peer = ? ORDER BY h.key", peer).toArray();
    for (const row of inserts) this.#append(peer, row.insert_frame);
    const tombstones = this.#sql.exec<{ key: string; delete_frame: string }>("SELECT key, delete_frame FROM channel_tombstones WHERE peer = ? ORDER BY key", peer).toArray();
    for (const row of tombstones) {
      const seq = this.#append(peer, row.delete_frame);
      this.#sql.exec("UPDATE channel_tombstones SET seq = ? WHERE peer = ? AND key = ?", seq, peer, row.key);
    }
    return { from: String(from), appended: inserts.length + tombstones.length };
  }

  /**
   * Acknowledges the frames up to `cursor` (deleted from the log) and clears the
   * tombstones whose delete the relay wrote to their peer's socket; answers the frames
   * after the cursor, at most a page. A cursor beyond every sequence this store assigned
   * (its storage is newer than the relay's cursor) reads from the start.
   */
  feed(ack: FeedAck): ChannelFeed {
    const cursor = Number(ack.cursor) < this.#next() ? Number(ack.cursor) : 0;
    this.#sql.exec("DELETE FROM channel_log WHERE seq <= ?", cursor);
    for (const { peer, seq } of ack.delivered) this.#sql.exec("DELETE FROM channel_tombstones WHERE peer = ? AND seq <= ?", peer, Number(seq));
    const frames = this.frames(cursor);
    return { cursor: frames.at(-1)?.seq ?? String(cursor), frames };
  }

  /** The frames after `cursor`, at most a page ({@link FEED_PAGE_FRAMES}, about {@link FEED_PAGE_BYTES}). */
  frames(cursor: number): ChannelFrame[] {
    const rows = this.#sql.exec<{ seq: number; peer: string; data: string }>("SELECT seq, peer, data FROM channel_log WHERE seq > ? ORDER BY seq LIMIT ?", cursor, FEED_PAGE_FRAMES).toArray();
    const page: ChannelFrame[] = [];
    let bytes = 0;
    for (const row of rows) {
      bytes += row.data.length;
      if (page.length > 0 && bytes > FEED_PAGE_BYTES) break;
      page.push({ seq: String(row.seq), peer: row.peer, data: row.data });
    }
    return page;
  }

  /** Whether `peer` must hold `key` now. */
  heldBy(peer: string, key: string): boolean {
    return this.#sql.exec("SELECT 1 AS x FROM channel_holds WHERE peer = ? AND key = ?", peer, key).toArray().length > 0;
  }

  /** Whether `key` was sent to `peer` and not since confirmed removed from it: held, or its delete not yet written. */
  wasSentTo(peer: string, key: string): boolean {
    return this.heldBy(peer, key) || this.#sql.exec("SELECT 1 AS x FROM channel_tombstones WHERE peer = ? AND key = ?", peer, key).toArray().length > 0;
  }

  /** Every key some peer holds. */
  keys(): string[] {
    return this.#sql.exec<{ key: string }>("SELECT key FROM channel_keys ORDER BY key").toArray().map((row) => row.key);
  }

  /** The rows of each table. */
  counts(): ChannelCounts {
    const count = (table: string): number => this.#sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n;
    return { keys: count("channel_keys"), holds: count("channel_holds"), tombstones: count("channel_tombstones"), log: count("channel_log") };
  }

  /** Sends `frame` (a delete) to `peer` and turns its hold of `key` into a tombstone at that frame. */
  #drop(peer: string, key: string, frame: string): void {
    const seq = this.#append(peer, frame);
    this.#sql.exec("DELETE FROM channel_holds WHERE peer = ? AND key = ?", peer, key);
    this.#sql.exec("INSERT INTO channel_tombstones (peer, key, seq, delete_frame) VALUES (?, ?, ?, ?) ON CONFLICT (peer, key) DO UPDATE SET seq = excluded.seq, delete_frame = excluded.delete_frame", peer, key, seq, frame);
  }

  /** Appends one frame to the log; returns its sequence. */
  #append(peer: string, data: string): number {
    const seq = this.#next();
    this.#sql.exec("INSERT INTO channel_log (seq, peer, data) VALUES (?, ?, ?)", seq, peer, data);
    this.#meta.set("next", seq + 1);
    return seq;
  }

  /** The next sequence to assign (1 in a new store). */
  #next(): number {
    return this.#meta.get("next") ?? 1;
  }
}
