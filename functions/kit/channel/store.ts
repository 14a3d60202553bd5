/**
 * The durable state of an edge channel (ADR 0028) over a Durable Object's SQLite, for any
 * family: what each peer must hold, the removals it may still hold, and the feed of
 * frames the relay writes to the peers' sockets. Keys and frames are opaque text here: a
 * family decides what a key names, what its frames say and which peers hold it.
 *
 * - `channel_frames`: the text of every frame still referenced, once however many peers
 *   it goes to (a job on a thousand nodes is one row, not a thousand copies).
 * - `channel_keys`: the frames of every key some peer holds (an insert carrying its
 *   content, the delete that removes it) and the content's digest.
 * - `channel_holds`: (peer, key) → the digest the peer was last sent.
 * - `channel_tombstones`: (peer, key) removed from the peer whose delete frame (`seq`) is
 *   not yet confirmed written to its socket; sent again on its next connect.
 * - `channel_log`: the feed, one row per frame sent to a peer, global sequence order.
 *
 * Limits, none applied silently: a feed page is at most {@link FEED_PAGE_FRAMES} frames and
 * about {@link FEED_PAGE_BYTES} bytes (a single larger frame goes alone, never split nor
 * dropped); the log keeps every frame the relay has not acknowledged (its size is
 * {@link ChannelStore.counts}); a connect queues the peer's whole state at once; a frame
 * text must fit one SQLite value (2 MB in a Durable Object), which the family checks
 * before it sets a key.
 */
import type { ChannelDelivered, ChannelFeed, ChannelFrame } from "../../../protocol/index.ts";
import { fnv1a64 } from "../hash.ts";
import type { Sql } from "../sql.ts";
import { MetaValues } from "../sql-meta.ts";

/** Most frames one feed answer carries: a job change for 2,000 nodes is one page. */
export const FEED_PAGE_FRAMES = 2_000;

/** About the most bytes of distinct frame text one feed answer carries (the first frame always goes, whatever its size). */
export const FEED_PAGE_BYTES = 4 * 1024 * 1024;

/** The two frames of a key: the one that gives a peer its content, the one that takes it away. */
export interface KeyFrames {
  readonly insert: string;
  readonly delete: string;
}

/** How many rows each table holds (for metrics, tests and limits). */
export interface ChannelCounts {
  /** Distinct frame texts stored. */
  readonly frames: number;
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
  "CREATE TABLE IF NOT EXISTS channel_frames (id INTEGER PRIMARY KEY, digest TEXT NOT NULL, size INTEGER NOT NULL, data TEXT NOT NULL)",
  "CREATE INDEX IF NOT EXISTS channel_frames_digest ON channel_frames (digest)",
  "CREATE TABLE IF NOT EXISTS channel_keys (key TEXT PRIMARY KEY, digest TEXT NOT NULL, insert_id INTEGER NOT NULL, delete_id INTEGER NOT NULL) WITHOUT ROWID",
  "CREATE INDEX IF NOT EXISTS channel_keys_insert ON channel_keys (insert_id)",
  "CREATE INDEX IF NOT EXISTS channel_keys_delete ON channel_keys (delete_id)",
  "CREATE TABLE IF NOT EXISTS channel_holds (peer TEXT NOT NULL, key TEXT NOT NULL, digest TEXT NOT NULL, PRIMARY KEY (peer, key)) WITHOUT ROWID",
  "CREATE INDEX IF NOT EXISTS channel_holds_key ON channel_holds (key)",
  "CREATE TABLE IF NOT EXISTS channel_tombstones (peer TEXT NOT NULL, key TEXT NOT NULL, seq INTEGER NOT NULL, delete_id INTEGER NOT NULL, PRIMARY KEY (peer, key)) WITHOUT ROWID",
  "CREATE INDEX IF NOT EXISTS channel_tombstones_frame ON channel_tombstones (delete_id)",
  "CREATE INDEX IF NOT EXISTS channel_tombstones_key ON channel_tombstones (key)",
  "CREATE TABLE IF NOT EXISTS channel_log (seq INTEGER PRIMARY KEY, peer TEXT NOT NULL, frame_id INTEGER NOT NULL)",
  "CREATE INDEX IF NOT EXISTS channel_log_peer ON channel_log (peer)",
  "CREATE INDEX IF NOT EXISTS channel_log_frame ON channel_log (frame_id)",
];

/** The digest that tells one frame text (or content) from another. */
function digestOf(text: string): string {
  return fnv1a64(text).toString(16);
}

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
    const before = this.#framesOf(key);
    const targets = [...new Set(peers)].sort();
    const digest = digestOf(frames.insert);
    const held = new Map(this.#sql.exec<{ peer: string; digest: string }>("SELECT peer, digest FROM channel_holds WHERE key = ?", key).toArray().map((row) => [row.peer, row.digest]));
    const dropped = [...held.keys()].filter((peer) => !targets.includes(peer));
    const sent = targets.filter((peer) => held.get(peer) !== digest);
    const deleteId = dropped.length > 0 || targets.length > 0 ? this.#frame(frames.delete) : undefined;
    for (const peer of dropped) this.#drop(peer, key, deleteId ?? 0);
    if (targets.length === 0) this.#sql.exec("DELETE FROM channel_keys WHERE key = ?", key);
    else this.#hold(key, digest, this.#frame(frames.insert), deleteId ?? 0, sent);
    this.#collect(before);
    return dropped.length + (targets.length === 0 ? 0 : sent.length);
  }

  /** Removes a key from every peer that holds it (its last delete frame, unless `deleteFrame` replaces it). Returns the frames appended. */
  remove(key: string, deleteFrame?: string): number {
    const before = this.#framesOf(key);
    const stored = this.#sql.exec<{ delete_id: number }>("SELECT delete_id FROM channel_keys WHERE key = ?", key).toArray()[0];
    const peers = this.#sql.exec<{ peer: string }>("SELECT peer FROM channel_holds WHERE key = ? ORDER BY peer", key).toArray();
    const deleteId = peers.length === 0 ? undefined : deleteFrame === undefined ? stored?.delete_id : this.#frame(deleteFrame);
    if (deleteId !== undefined) for (const { peer } of peers) this.#drop(peer, key, deleteId);
    this.#sql.exec("DELETE FROM channel_holds WHERE key = ?", key);
    this.#sql.exec("DELETE FROM channel_keys WHERE key = ?", key);
    this.#collect(before);
    return deleteId === undefined ? 0 : peers.length;
  }

  /**
   * A peer (re)connected: its earlier unsent frames are superseded (dropped from the log),
   * and its whole state is appended: an insert of every key it holds, a delete of every
   * tombstone (whose sequence moves to that delete). Answers the sequence it starts at
   * (the next one when it has nothing).
   */
  connect(peer: string): { from: string; appended: number } {
    const superseded = this.#sql.exec<{ frame_id: number }>("DELETE FROM channel_log WHERE peer = ? RETURNING frame_id", peer).toArray();
    const from = this.#next();
    const inserts = this.#sql.exec<{ insert_id: number }>("SELECT k.insert_id FROM channel_holds h JOIN channel_keys k ON k.key = h.key WHERE h.peer = ? ORDER BY h.key", peer).toArray();
    for (const row of inserts) this.#append(peer, row.insert_id);
    const tombstones = this.#sql.exec<{ key: string; delete_id: number }>("SELECT key, delete_id FROM channel_tombstones WHERE peer = ? ORDER BY key", peer).toArray();
    for (const row of tombstones) {
      const seq = this.#append(peer, row.delete_id);
      this.#sql.exec("UPDATE channel_tombstones SET seq = ? WHERE peer = ? AND key = ?", seq, peer, row.key);
    }
    this.#collect(superseded.map((row) => row.frame_id));
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
    const acknowledged = this.#sql.exec<{ frame_id: number }>("DELETE FROM channel_log WHERE seq <= ? RETURNING frame_id", cursor).toArray();
    const cleared = ack.delivered.flatMap(({ peer, seq }) => this.#sql.exec<{ delete_id: number }>("DELETE FROM channel_tombstones WHERE peer = ? AND seq <= ? RETURNING delete_id", peer, Number(seq)).toArray());
    this.#collect([...acknowledged.map((row) => row.frame_id), ...cleared.map((row) => row.delete_id)]);
    const page = this.page(cursor);
    return { cursor: page.frames.at(-1)?.seq ?? String(cursor), ...page };
  }

  /**
   * The frames after `cursor`, at most a page: {@link FEED_PAGE_FRAMES} frames, about
   * {@link FEED_PAGE_BYTES} of distinct text (a text sent to many peers counts once, as
   * it travels once).
   */
  page(cursor: number): Pick<ChannelFeed, "texts" | "frames"> {
    const rows = this.#sql
      .exec<{ seq: number; peer: string; frame_id: number; size: number }>("SELECT l.seq, l.peer, l.frame_id, f.size FROM channel_log l JOIN channel_frames f ON f.id = l.frame_id WHERE l.seq > ? ORDER BY l.seq LIMIT ?", cursor, FEED_PAGE_FRAMES)
      .toArray();
    const index = new Map<number, number>();
    const texts: string[] = [];
    const frames: ChannelFrame[] = [];
    let bytes = 0;
    for (const row of rows) {
      let text = index.get(row.frame_id);
      if (text === undefined) {
        bytes += row.size;
        if (frames.length > 0 && bytes > FEED_PAGE_BYTES) break;
        text = texts.push(this.#sql.exec<{ data: string }>("SELECT data FROM channel_frames WHERE id = ?", row.frame_id).one().data) - 1;
        index.set(row.frame_id, text);
      }
      frames.push({ seq: String(row.seq), peer: row.peer, text });
    }
    return { texts, frames };
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
    return { frames: count("channel_frames"), keys: count("channel_keys"), holds: count("channel_holds"), tombstones: count("channel_tombstones"), log: count("channel_log") };
  }

  /** Sends the insert to each of `sent` (now holding this content, no longer a tombstone) and records the key's frames. */
  #hold(key: string, digest: string, insertId: number, deleteId: number, sent: readonly string[]): void {
    for (const peer of sent) {
      this.#append(peer, insertId);
      this.#sql.exec("INSERT INTO channel_holds (peer, key, digest) VALUES (?, ?, ?) ON CONFLICT (peer, key) DO UPDATE SET digest = excluded.digest", peer, key, digest);
      this.#sql.exec("DELETE FROM channel_tombstones WHERE peer = ? AND key = ?", peer, key);
    }
    this.#sql.exec(
      "INSERT INTO channel_keys (key, digest, insert_id, delete_id) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET digest = excluded.digest, insert_id = excluded.insert_id, delete_id = excluded.delete_id",
      key,
      digest,
      insertId,
      deleteId,
    );
  }

  /** The frames a key's row and its tombstones refer to now: what a change of them may leave unreferenced. */
  #framesOf(key: string): number[] {
    const row = this.#sql.exec<{ insert_id: number; delete_id: number }>("SELECT insert_id, delete_id FROM channel_keys WHERE key = ?", key).toArray()[0];
    const tombstones = this.#sql.exec<{ delete_id: number }>("SELECT delete_id FROM channel_tombstones WHERE key = ?", key).toArray();
    return [...(row ? [row.insert_id, row.delete_id] : []), ...tombstones.map((t) => t.delete_id)];
  }

  /** Sends frame `deleteId` to `peer` and turns its hold of `key` into a tombstone at that frame. */
  #drop(peer: string, key: string, deleteId: number): void {
    const seq = this.#append(peer, deleteId);
    this.#sql.exec("DELETE FROM channel_holds WHERE peer = ? AND key = ?", peer, key);
    this.#sql.exec("INSERT INTO channel_tombstones (peer, key, seq, delete_id) VALUES (?, ?, ?, ?) ON CONFLICT (peer, key) DO UPDATE SET seq = excluded.seq, delete_id = excluded.delete_id", peer, key, seq, deleteId);
  }

  /** The id of the stored frame with this text, stored now when it is not. */
  #frame(data: string): number {
    const digest = digestOf(data);
    const found = this.#sql.exec<{ id: number }>("SELECT id FROM channel_frames WHERE digest = ? AND data = ?", digest, data).toArray()[0];
    return found?.id ?? this.#sql.exec<{ id: number }>("INSERT INTO channel_frames (digest, size, data) VALUES (?, ?, ?) RETURNING id", digest, data.length, data).one().id;
  }

  /** Forgets those of `candidates` (frames just unreferenced somewhere) that nothing refers to any more. */
  #collect(candidates: readonly number[]): void {
    for (const id of new Set(candidates)) {
      this.#sql.exec(
        "DELETE FROM channel_frames WHERE id = ? AND NOT EXISTS (SELECT 1 FROM channel_log WHERE frame_id = ?) AND NOT EXISTS (SELECT 1 FROM channel_keys WHERE insert_id = ?) AND NOT EXISTS (SELECT 1 FROM channel_keys WHERE delete_id = ?) AND NOT EXISTS (SELECT 1 FROM channel_tombstones WHERE delete_id = ?)",
        id,
        id,
        id,
        id,
        id,
      );
    }
  }

  /** Appends frame `frameId` to `peer` in the log; returns its sequence. */
  #append(peer: string, frameId: number): number {
    const seq = this.#next();
    this.#sql.exec("INSERT INTO channel_log (seq, peer, frame_id) VALUES (?, ?, ?)", seq, peer, frameId);
    this.#meta.set("next", seq + 1);
    return seq;
  }

  /** The next sequence to assign (1 in a new store). */
  #next(): number {
    return this.#meta.get("next") ?? 1;
  }
}
