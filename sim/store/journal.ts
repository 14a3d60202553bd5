/**
 * The sim's store on disk, in one folder: `snapshot.jsonl` (every object at one
 * resourceVersion, replaced atomically: written to a temporary file, synced, renamed)
 * and `log.jsonl` (every change committed since, appended in order). Loading reads the
 * snapshot and replays the log; a line torn by a crash ends the log and is dropped, so
 * a crash loses at most what was not yet appended and never leaves unreadable state.
 */
import { closeSync, existsSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { KubeObject } from "../../protocol/index.ts";
import type { StoredEntry, StoreEvent } from "./store.ts";

const SNAPSHOT = "snapshot.jsonl";
const LOG = "log.jsonl";
const FORMAT = "edgeloop-sim-state";
const VERSION = 1;

/** What a state folder holds once loaded. */
export interface LoadedState {
  /** The resourceVersion the store continues from. */
  readonly resourceVersion: number;
  readonly objects: { readonly resource: string; readonly object: KubeObject }[];
  /** Log lines committed after the snapshot and applied. */
  readonly replayedChanges: number;
  /** What was dropped (a torn last line), for a log line; empty when all was read. */
  readonly warnings: readonly string[];
}

/** A state folder that cannot be read: named with the reason, never silently emptied. */
export class StateError extends Error {}

/** Whether `dir` holds a saved cluster. */
export function hasState(dir: string): boolean {
  return existsSync(join(dir, SNAPSHOT));
}

/** Reads the snapshot and the log after it; undefined for a folder with no snapshot. */
export function loadState(dir: string): LoadedState | undefined {
  if (!hasState(dir)) return undefined;
  const objects = new Map<string, { resource: string; object: KubeObject }>();
  let rv = readSnapshot(join(dir, SNAPSHOT), objects);
  const warnings: string[] = [];
  let replayedChanges = 0;
  const logFile = join(dir, LOG);
  const lines = existsSync(logFile) ? readFileSync(logFile, "utf8").split("\n") : [];
  for (const [index, line] of lines.entries()) {
    if (line === "") continue;
    const change = parseChange(line);
    if (!change) {
      // Appends are whole lines, so only the end can be torn; nothing after it is trusted.
      warnings.push(`dropped ${lines.slice(index).filter((l) => l !== "").length} unreadable line(s) at the end of ${LOG} (a crash during a write)`);
      break;
    }
    if (change.rv <= rv) continue; // already in the snapshot (a crash between snapshot and log truncation)
    const key = `${change.resource}|${change.object.metadata.namespace ?? ""}|${change.object.metadata.name ?? ""}`;
    if (change.type === "DELETED") objects.delete(key);
    else objects.set(key, { resource: change.resource, object: change.object });
    rv = change.rv;
    replayedChanges += 1;
  }
  return { resourceVersion: rv, objects: [...objects.values()], replayedChanges, warnings };
}

function readSnapshot(file: string, into: Map<string, { resource: string; object: KubeObject }>): number {
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l !== "");
  let header: { format?: unknown; version?: unknown; resourceVersion?: unknown; objects?: unknown };
  try {
    header = JSON.parse(lines[0] ?? "") as typeof header;
  } catch {
    throw new StateError(`${file} has no readable header`);
  }
  if (header.format !== FORMAT || header.version !== VERSION || typeof header.resourceVersion !== "number") throw new StateError(`${file} is not a version ${VERSION} ${FORMAT} file`);
  if (header.objects !== lines.length - 1) throw new StateError(`${file} is incomplete: ${lines.length - 1} of ${String(header.objects)} objects`);
  for (const [index, line] of lines.slice(1).entries()) {
    let entry: { resource: string; object: KubeObject };
    try {
      entry = JSON.parse(line) as { resource: string; object: KubeObject };
    } catch {
      throw new StateError(`${file}: object ${index + 1} is unreadable`);
    }
    into.set(`${entry.resource}|${entry.object.metadata.namespace ?? ""}|${entry.object.metadata.name ?? ""}`, entry);
  }
  return header.resourceVersion;
}

function parseChange(line: string): { rv: number; type: StoreEvent["type"]; resource: string; object: KubeObject } | undefined {
  try {
    const change = JSON.parse(line) as { rv?: unknown; type?: unknown; resource?: unknown; object?: { metadata?: unknown } };
    const ok = typeof change.rv === "number" && typeof change.resource === "string" && (change.type === "ADDED" || change.type === "MODIFIED" || change.type === "DELETED") && typeof change.object?.metadata === "object";
    return ok ? (change as { rv: number; type: StoreEvent["type"]; resource: string; object: KubeObject }) : undefined;
  } catch {
    return undefined;
  }
}

/** The log line of one committed change (the stored JSON is reused, not serialised again). */
export function changeLine(event: StoreEvent): string {
  return `{"rv":${event.rv},"type":"${event.type}","resource":${JSON.stringify(event.resource)},"object":${event.stored.json}}\n`;
}

/**
 * Writes a snapshot of `entries` at `resourceVersion`: a temporary file, synced, then
 * renamed over the old one (a reader sees the old or the new, never half of one).
 * Returns its size in bytes.
 */
export function writeSnapshot(dir: string, resourceVersion: number, entries: Iterable<StoredEntry>): number {
  mkdirSync(dir, { recursive: true });
  const items = [...entries];
  const tmp = join(dir, `${SNAPSHOT}.tmp`);
  const fd = openSync(tmp, "w", 0o600);
  let bytes = 0;
  try {
    bytes += writeAll(fd, `${JSON.stringify({ format: FORMAT, version: VERSION, resourceVersion, objects: items.length })}\n`);
    // In chunks: one string of a whole large cluster would double its memory for nothing.
    for (let i = 0; i < items.length; i += 1000) {
      bytes += writeAll(fd, items.slice(i, i + 1000).map((e) => `{"resource":${JSON.stringify(e.resource)},"object":${e.stored.json}}\n`).join(""));
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, join(dir, SNAPSHOT));
  syncDir(dir);
  return bytes;
}

/** Writes all of `text` (a short write is continued, not lost); returns the bytes written. */
function writeAll(fd: number, text: string): number {
  const buffer = Buffer.from(text, "utf8");
  for (let at = 0; at < buffer.length; ) at += writeSync(fd, buffer, at, buffer.length - at);
  return buffer.length;
}

/** Makes a rename durable (directories cannot be opened for sync on every platform). */
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Best effort: the rename itself is atomic either way.
  }
}

/** The append-only log of changes since the last snapshot. */
export class ChangeLog {
  readonly #fd: number;
  #bytes: number;

  /** Opens (creating) the log of `dir` for appending. */
  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    this.#fd = openSync(join(dir, LOG), "a", 0o600);
    this.#bytes = statSync(join(dir, LOG)).size;
  }

  /** Bytes in the log now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Appends whole lines (one write: the OS keeps it even if this process dies right after). */
  append(lines: string): void {
    if (lines === "") return;
    this.#bytes += writeAll(this.#fd, lines);
  }

  /** Empties the log (after a snapshot holds everything in it). */
  truncate(): void {
    ftruncateSync(this.#fd, 0);
    this.#bytes = 0;
  }

  close(): void {
    closeSync(this.#fd);
  }
}
