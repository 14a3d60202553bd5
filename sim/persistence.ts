/**
 * Keeps the sim's cluster in a folder across restarts, as a kind cluster keeps its etcd:
 * on start the saved objects come back with their uids and resourceVersions (the
 * resourceVersion continues from the saved maximum); while running, every committed
 * change is appended to a log within `flushMs`; the log is folded into a fresh snapshot
 * when it outgrows it, at start and at a clean stop. One process at a time owns a folder
 * (a lock file naming its pid).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../cli/log.ts";
import type { SimCluster } from "./api/sim-cluster.ts";
import { checkCrd, resourceOfCrd } from "./crd/serving.ts";
import { ChangeLog, changeLine, loadState, StateError, writeSnapshot, type LoadedState } from "./store/journal.ts";
import type { StoreEvent } from "./store/store.ts";

export { hasState, StateError } from "./store/journal.ts";

const LOCK = "lock";
const CRDS = "apiextensions.k8s.io/customresourcedefinitions";

/** Another live process owns the state folder. */
export class StateBusyError extends StateError {
  readonly pid: number;
  constructor(dir: string, pid: number) {
    super(`the cluster state in ${dir} is in use by process ${pid}: stop it first, or use another state folder`);
    this.pid = pid;
  }
}

/** How the state is kept. */
export interface PersistenceOptions {
  /** The folder (created if missing). */
  readonly dir: string;
  /** At most this long between a commit and its log append (default 100 ms): what a crash can lose. */
  readonly flushMs?: number;
  /** The log is folded into the snapshot once it is larger than this and half the snapshot (default 1 MiB). */
  readonly compactBytes?: number;
  readonly log?: Logger;
}

/** A cluster's state attached to its folder. */
export interface PersistedState {
  /** What was loaded at start (undefined: the folder was empty, the cluster starts fresh). */
  readonly restored: { readonly objects: number; readonly resourceVersion: number } | undefined;
  /** Writes every pending change; the snapshot stays as it is (tests simulate a crash after it). */
  flush(): void;
  /** Flushes, writes the final snapshot, empties the log and releases the folder. */
  close(): void;
}

/**
 * Takes the folder, loads what it holds into `cluster` (before anything watches it) and
 * journals every commit from now on.
 */
export function persistCluster(cluster: SimCluster, options: PersistenceOptions): PersistedState {
  const { dir } = options;
  const log = options.log ?? ((): void => undefined);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  lockFolder(dir);
  try {
    const loaded = loadState(dir);
    for (const warning of loaded?.warnings ?? []) log("warn", warning, { state: dir });
    if (loaded) restoreInto(cluster, loaded);
    return journal(cluster, options, loaded);
  } catch (error) {
    unlockFolder(dir);
    throw error instanceof SyntaxError ? new StateError(`${dir}: ${error.message}`) : error;
  }
}

/** Serves the saved CRDs' kinds, then puts every object back. */
function restoreInto(cluster: SimCluster, loaded: LoadedState): void {
  for (const { resource, object } of loaded.objects) {
    if (resource !== CRDS || object.metadata.deletionTimestamp) continue;
    const checked = checkCrd(object);
    if ("spec" in checked) cluster.registry.serveCrd(object.metadata.name ?? "", resourceOfCrd(object.metadata.name ?? "", checked.spec));
  }
  cluster.store.restore(loaded.objects, loaded.resourceVersion);
}

function journal(cluster: SimCluster, options: PersistenceOptions, loaded: LoadedState | undefined): PersistedState {
  const { dir } = options;
  const store = cluster.store;
  const flushMs = options.flushMs ?? 100;
  const compactBytes = options.compactBytes ?? 1024 * 1024;
  const log = options.log ?? ((): void => undefined);
  // Start from one snapshot of exactly what is in memory: the log replayed, a torn tail dropped.
  let snapshotBytes = writeSnapshot(dir, store.resourceVersion, store.entries());
  const changes = new ChangeLog(dir);
  changes.truncate();
  let pending: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failing = false;

  const compact = (): void => {
    snapshotBytes = writeSnapshot(dir, store.resourceVersion, store.entries());
    changes.truncate();
  };
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const lines = pending.join("");
    pending = [];
    try {
      changes.append(lines);
      if (changes.bytes > Math.max(compactBytes, snapshotBytes / 2)) compact();
      failing = false;
    } catch (error) {
      // A full disk must not stop the cluster; say so once, keep trying.
      if (!failing) log("error", "could not save the cluster state", { state: dir, error: String(error) });
      failing = true;
    }
  };
  const unsubscribe = store.subscribe((event: StoreEvent) => {
    if (event.replayed) return;
    pending.push(changeLine(event));
    timer ??= setTimeout(flush, flushMs);
    // The timer must not keep a process alive that has nothing else to do.
    timer.unref();
  });
  if (loaded) log("info", `restored the cluster: ${loaded.objects.length} objects at resourceVersion ${store.resourceVersion}`, { state: dir, logged: loaded.replayedChanges });
  let closed = false;
  return {
    restored: loaded ? { objects: loaded.objects.length, resourceVersion: store.resourceVersion } : undefined,
    flush,
    close(): void {
      if (closed) return;
      closed = true;
      unsubscribe();
      flush();
      try {
        compact();
      } finally {
        changes.close();
        unlockFolder(dir);
      }
    },
  };
}

/** Empties a state folder (`--fresh`); refuses while another process owns it. */
export function clearState(dir: string): void {
  const owner = lockOwner(dir);
  if (owner !== undefined && owner !== process.pid) throw new StateBusyError(dir, owner);
  rmSync(dir, { recursive: true, force: true });
}

/** The pid of the live process owning `dir`, if any. */
export function lockOwner(dir: string): number | undefined {
  const file = join(dir, LOCK);
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, "utf8").trim());
  return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
}

function lockFolder(dir: string): void {
  try {
    writeFileSync(join(dir, LOCK), `${process.pid}\n`, { mode: 0o600, flag: "wx" });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const owner = lockOwner(dir);
  if (owner !== undefined && owner !== process.pid) throw new StateBusyError(dir, owner);
  // A lock left by a process that is gone (a crash) is taken over.
  writeFileSync(join(dir, LOCK), `${process.pid}\n`, { mode: 0o600 });
}

function unlockFolder(dir: string): void {
  if (lockOwner(dir) === process.pid) rmSync(join(dir, LOCK), { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
