/**
 * workerd as a process of this machine. Miniflare spawns it as a plain child: when the
 * Node process that owns it is killed (`kill -9` of `npm start`), workerd lives on,
 * holding its port and its Durable Object files, and a second start on the same state
 * folder ran a second workerd on them (issue 28). Here: finding its pid, a watchdog that
 * kills it when its owner dies however it dies, and the state folder's lock.
 * Linux (`/proc`); elsewhere nothing is found and nothing is watched.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";

/** The command name workerd runs under (`/proc/<pid>/comm`). */
const WORKERD = "workerd";

/** `/proc/<pid>/stat`'s command name and parent pid, or undefined when `pid` is gone. */
function stat(pid: number): { readonly comm: string; readonly ppid: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split at the last ")".
    const close = text.lastIndexOf(")");
    return { comm: text.slice(text.indexOf("(") + 1, close), ppid: Number(text.slice(close + 2).split(" ")[1]) };
  } catch {
    return undefined;
  }
}

/** Whether `pid` is a live workerd. */
export function isWorkerd(pid: number): boolean {
  return stat(pid)?.comm === WORKERD;
}

/** Whether `pid` is a live process (of any user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The workerd processes whose parent is `parent` (this process by default). */
export function workerdChildren(parent: number = process.pid): number[] {
  if (!existsSync("/proc")) return [];
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      const info = stat(pid);
      return info?.comm === WORKERD && info.ppid === parent;
    });
}

/**
 * Kills `pid` (a workerd) when this process dies, however it dies: a `sh` in a process
 * group of its own reads a pipe from this process until it closes (the kernel closes it
 * when this process ends, even on SIGKILL), then sends SIGTERM and, a second later,
 * SIGKILL. Returns what ends the watch on an orderly stop (before workerd is stopped).
 */
export function killWithParent(pid: number): () => void {
  const script = 'cat >/dev/null; kill -TERM "$0" 2>/dev/null; sleep 1; kill -KILL "$0" 2>/dev/null; exit 0';
  const watchdog = spawn("sh", ["-c", script, String(pid)], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
  watchdog.on("error", () => undefined);
  watchdog.stdin?.on("error", () => undefined);
  // Neither the watchdog nor its pipe keeps this process alive.
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return () => {
    watchdog.kill("SIGKILL");
  };
}

/** Another live process runs workerd on the Durable Object state folder. */
export class DurableStateBusyError extends Error {
  readonly owner: number;
  constructor(dir: string, owner: number, workerd: number | undefined) {
    super(`the Durable Object state in ${dir} is in use by process ${owner}${workerd ? ` (its workerd: pid ${workerd})` : ""}: stop it first, or use another state folder`);
    this.owner = owner;
  }
}

/** What the lock file holds. */
interface LockRecord {
  readonly owner: number;
  readonly workerd?: number;
}

const lockFile = (dir: string): string => `${dir.replace(/\/$/, "")}.lock`;

function readLock(dir: string): LockRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(lockFile(dir), "utf8")) as Partial<LockRecord>;
    return Number.isInteger(record.owner) ? { owner: Number(record.owner), ...(Number.isInteger(record.workerd) ? { workerd: Number(record.workerd) } : {}) } : undefined;
  } catch {
    return undefined;
  }
}

/** What taking the lock found. */
export interface Taken {
  /** A workerd left running by an owner that died (stopped now), if there was one. */
  readonly stoppedOrphan?: number;
  /** Records this run's workerd in the lock. */
  record(workerd: number): void;
  /** Removes the lock (if still ours). */
  release(): void;
}

/**
 * Takes the lock of the Durable Object state folder `dir` (the file `<dir>.lock`, beside
 * it: the folder is workerd's). Refuses ({@link DurableStateBusyError}) while its owner
 * lives and runs, or is starting, a workerd on it; a workerd whose owner died (killed
 * before this watchdog existed, or with it) is an orphan nobody will stop: it is stopped
 * and the lock taken over.
 */
export async function lockDurableState(dir: string): Promise<Taken> {
  const held = readLock(dir);
  if (held && alive(held.owner)) {
    const workerdLives = held.workerd !== undefined && isWorkerd(held.workerd);
    if (held.owner !== process.pid || workerdLives) throw new DurableStateBusyError(dir, held.owner, workerdLives ? held.workerd : undefined);
  }
  const stoppedOrphan = await stopOrphanWorkerd(dir);
  writeFileSync(lockFile(dir), JSON.stringify({ owner: process.pid }), { mode: 0o600 });
  return {
    ...(stoppedOrphan === undefined ? {} : { stoppedOrphan }),
    record: (workerd) => writeFileSync(lockFile(dir), JSON.stringify({ owner: process.pid, workerd }), { mode: 0o600 }),
    release: () => {
      if (readLock(dir)?.owner === process.pid) rmSync(lockFile(dir), { force: true });
    },
  };
}

/**
 * Stops the workerd the lock of `dir` names when its owner is dead (an orphan nobody else
 * will stop, holding the Worker port and the files) and drops the lock; returns its pid.
 * Nothing while the owner lives.
 */
export async function stopOrphanWorkerd(dir: string): Promise<number | undefined> {
  const held = readLock(dir);
  if (!held || alive(held.owner)) return undefined;
  rmSync(lockFile(dir), { force: true });
  if (held.workerd === undefined || !isWorkerd(held.workerd)) return undefined;
  await stopProcess(held.workerd);
  return held.workerd;
}

/** SIGTERM, then SIGKILL after 5 s; resolves once `pid` is gone. */
async function stopProcess(pid: number): Promise<void> {
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(pid, name);
    } catch {
      // Gone already.
    }
  };
  signal("SIGTERM");
  const killAt = performance.now() + 5_000;
  while (alive(pid)) {
    if (performance.now() > killAt) signal("SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
