/**
 * `npm start`'s state folder: the sim cluster (`cluster/`) and the Worker's Durable
 * Objects (`durable-objects/`) are kept across restarts, and only together: what the
 * Durable Objects remember (recreation claims, timers, the outbox) is about the objects
 * of that cluster, so one kept without the other is cleared.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { clearState, hasState, lockOwner, StateBusyError } from "../../sim/persistence.ts";

/** Where each part of the state lives. */
export interface StateFolders {
  readonly root: string;
  readonly cluster: string;
  readonly durableObjects: string;
}

/** The folders under `root`. */
export function stateFolders(root: string): StateFolders {
  return { root, cluster: join(root, "cluster"), durableObjects: join(root, "durable-objects") };
}

/** One line to tell the person starting the stack. */
export interface StateNote {
  readonly level: "info" | "warn";
  readonly message: string;
}

/**
 * Makes the state consistent before anything starts: `fresh` clears both parts; on the
 * sim, a cluster without Durable Objects (or the reverse) loses the other. With a real
 * cluster (`sim` false) only the Durable Objects are used. Throws {@link StateBusyError}
 * while another process runs on this folder.
 */
export function prepareState(folders: StateFolders, options: { readonly fresh: boolean; readonly sim: boolean }): StateNote[] {
  const owner = lockOwner(folders.cluster);
  if (owner !== undefined && owner !== process.pid) throw new StateBusyError(folders.root, owner);
  const cluster = hasState(folders.cluster);
  // The folder is made at every start, so it is missing only when it was removed (workerd writes into it lazily).
  const durable = existsSync(folders.durableObjects);
  const notes = consistent(folders, options, cluster, durable);
  mkdirSync(folders.durableObjects, { recursive: true, mode: 0o700 });
  // The cluster's Secrets and the Durable Objects' keys live here: owner only, even for a folder an older run made 0755.
  for (const dir of [folders.root, folders.durableObjects]) chmodSync(dir, 0o700);
  return notes;
}

function consistent(folders: StateFolders, options: { readonly fresh: boolean; readonly sim: boolean }, cluster: boolean, durable: boolean): StateNote[] {
  if (options.fresh) {
    clearState(folders.cluster);
    rmSync(folders.durableObjects, { recursive: true, force: true });
    return [{ level: "info", message: `--fresh: cleared the cluster and the Durable Object state in ${folders.root}` }];
  }
  if (!options.sim) return [];
  if (cluster && !durable) {
    clearState(folders.cluster);
    return [{ level: "warn", message: `the Durable Object state is missing from ${folders.root}: cleared the saved cluster too, so that they stay consistent; starting empty` }];
  }
  if (durable && !cluster && readdirSync(folders.durableObjects).length > 0) {
    rmSync(folders.durableObjects, { recursive: true, force: true });
    return [{ level: "warn", message: `the saved cluster is missing from ${folders.root}: cleared the Durable Object state too, so that they stay consistent; starting empty` }];
  }
  return cluster ? [{ level: "info", message: `resuming the cluster saved in ${folders.cluster} (--fresh starts empty)` }] : [];
}
