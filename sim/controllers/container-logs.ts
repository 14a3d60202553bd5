/**
 * What simulated containers wrote, kept in memory per pod and container as a node keeps
 * `/var/log/pods`: the current instance and the one before it (`kubectl logs --previous`),
 * each bounded in size. The kubelet writes; the API server's `pods/log` reads. A program's
 * lines are written when the container starts, each stamped with the moment the program
 * prints it, and a line is visible once that moment has come.
 */

/** One line (or partial line) a container wrote. */
export interface LogEntry {
  /** Epoch milliseconds. */
  readonly time: number;
  readonly stream: "stdout" | "stderr";
  readonly text: string;
}

/** The log of one container instance. */
interface InstanceLog {
  entries: LogEntry[];
  /** When the instance stopped (epoch ms); lines after it are never written. */
  endedAt: number | undefined;
}

/** A container's current and previous instance. */
interface ContainerLog {
  current: InstanceLog;
  previous: InstanceLog | undefined;
  readonly listeners: Set<() => void>;
}

/** What a reader gets: the lines visible now, and whether more may come. */
export interface LogView {
  readonly entries: readonly LogEntry[];
  /** The instance has stopped: nothing more will be written. */
  readonly ended: boolean;
  /** When the next already-written line becomes visible (epoch ms), if any. */
  readonly nextAt: number | undefined;
}

/** Bytes kept per container instance; older lines are dropped first (the kubelet rotates at 10 MiB). */
export const MAX_LOG_BYTES = 256 * 1024;

/** The container logs of one simulated cluster. */
export class ContainerLogs {
  readonly #pods = new Map<string, Map<string, ContainerLog>>();
  readonly #maxBytes: number;

  constructor(maxBytes = MAX_LOG_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /** A container (re)started: its log so far becomes the previous one; `entries` are what it will write. */
  start(podUid: string, container: string, entries: readonly LogEntry[]): void {
    let pod = this.#pods.get(podUid);
    if (!pod) this.#pods.set(podUid, (pod = new Map()));
    const log = pod.get(container);
    const current: InstanceLog = { entries: this.#bounded([...entries].sort((a, b) => a.time - b.time)), endedAt: undefined };
    if (log) {
      log.previous = log.current;
      log.current = current;
    } else {
      pod.set(container, { current, previous: undefined, listeners: new Set() });
    }
    this.#notify(podUid, container);
  }

  /** The current instance stopped at `at`: what it would have written later is dropped. */
  end(podUid: string, container: string, at: number): void {
    const log = this.#pods.get(podUid)?.get(container);
    if (!log || log.current.endedAt !== undefined) return;
    log.current.entries = log.current.entries.filter((e) => e.time <= at);
    log.current.endedAt = at;
    this.#notify(podUid, container);
  }

  /** The lines visible at `now` of the current (or previous) instance; undefined when none was started. */
  read(podUid: string, container: string, previous: boolean, now: number): LogView | undefined {
    const log = this.#pods.get(podUid)?.get(container);
    const instance = previous ? log?.previous : log?.current;
    if (!instance) return undefined;
    const visible = instance.entries.filter((e) => e.time <= now);
    const next = instance.entries.find((e) => e.time > now);
    const ended = previous || (instance.endedAt !== undefined && instance.endedAt <= now);
    return { entries: visible, ended, nextAt: next?.time };
  }

  /** Calls `listener` whenever the container starts again or stops; returns the unsubscribe. */
  subscribe(podUid: string, container: string, listener: () => void): () => void {
    const log = this.#pods.get(podUid)?.get(container);
    if (!log) return (): void => undefined;
    log.listeners.add(listener);
    return (): void => void log.listeners.delete(listener);
  }

  /** The pod is gone: its logs go with it (followers are told, and see them ended). */
  forget(podUid: string): void {
    const pod = this.#pods.get(podUid);
    if (!pod) return;
    this.#pods.delete(podUid);
    for (const log of pod.values()) {
      log.current.endedAt ??= Date.now();
      for (const listener of [...log.listeners]) listener();
    }
  }

  #notify(podUid: string, container: string): void {
    const log = this.#pods.get(podUid)?.get(container);
    for (const listener of [...(log?.listeners ?? [])]) listener();
  }

  /** The newest lines that fit in the size bound. */
  #bounded(entries: LogEntry[]): LogEntry[] {
    let bytes = entries.reduce((sum, e) => sum + Buffer.byteLength(e.text), 0);
    let drop = 0;
    while (bytes > this.#maxBytes && drop < entries.length) {
      bytes -= Buffer.byteLength(entries[drop]?.text ?? "");
      drop += 1;
    }
    return entries.slice(drop);
  }
}

const stores = new WeakMap<object, ContainerLogs>();

/** The one log store of a cluster: the kubelet and the API server reach it through the cluster they share. */
export function containerLogsOf(cluster: object): ContainerLogs {
  let store = stores.get(cluster);
  if (!store) stores.set(cluster, (store = new ContainerLogs()));
  return store;
}
