/**
 * The chaos suite's continuous count: every object of the workload's namespace ever
 * created (from the watch stream, not a look now and then) and every API reply given.
 * A slot filled by two live objects at any moment is a duplicate, even if one is gone
 * by the final look; a URL a replicas reply names that no live pod answers is a lost
 * object (the client believes it exists); a replica pod created beyond what the
 * replies asked for is a duplicate too. Counted per row (`beginRow` … `endRow`).
 */
import type { ClusterEvent } from "../../sim/contract.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { slotKeys, type SlotKind } from "./slot-keys.ts";

/** What the ledger needs of the cluster: one watch of every kind. */
export interface Watchable {
  watch(type: null, onEvent: (event: ClusterEvent) => void): () => void;
}

/** A replica pod: the job and the role its labels give. */
export interface ReplicaOf {
  readonly job: string;
  readonly role: string;
}

/** What the ledger saw during one row. */
export interface RowLedger {
  /** Objects created in the namespace during the row. */
  readonly created: number;
  /** Replies recorded during the row. */
  readonly replies: number;
  /** URLs those replies named with no live pod behind them. */
  readonly lost: number;
  /** The largest number of extra live objects each slot had at once, summed; plus replicas beyond what was asked. */
  readonly duplicated: number;
  /** Up to 5 of each, for the table. */
  readonly examples: readonly string[];
}

const KINDS: ReadonlySet<string> = new Set(["Pod", "Deployment", "Service"]);

/** Counts a namespace's objects and the replies about them, continuously. */
export class Ledger {
  readonly #namespace: string;
  /** Slot keys of each live object, by uid. */
  readonly #live = new Map<string, { readonly name: string; readonly keys: readonly string[] }>();
  readonly #filled = new Map<string, number>();
  #peaks = new Map<string, number>();
  #created = 0;
  #everCreated = 0;
  #everReplies = 0;
  #replies = 0;
  #lost = 0;
  #examples: string[] = [];
  /** Replica pods created this row, by job/role; and what replies asked for. */
  #replicasCreated = new Map<string, number>();
  #replicasAsked = new Map<string, number>();
  #unsubscribe: (() => void) | undefined;

  constructor(namespace: string) {
    this.#namespace = namespace;
  }

  /** Starts watching `cluster` (every kind; the namespace's Pods, Deployments and Services are counted). */
  watch(cluster: Watchable): void {
    this.#unsubscribe ??= cluster.watch(null, (event) => this.#seen(event));
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** Starts a row's counts afresh (what is live stays known). */
  beginRow(): void {
    this.#peaks = new Map();
    this.#created = 0;
    this.#replies = 0;
    this.#lost = 0;
    this.#examples = [];
    this.#replicasCreated = new Map();
    this.#replicasAsked = new Map();
  }

  /**
   * Records a reply the replicas API gave: `asked` more `role` replicas of `job`, and the
   * URLs (`<pod>.<namespace>:<port>`) it answered with (none: the client never got a
   * 200). Each must name a live pod now; a 200 naming fewer than asked lost the rest.
   */
  reply(job: string, role: string, asked: number, urls: readonly string[]): void {
    this.#replies += 1;
    this.#everReplies += 1;
    const key = `${job}/${role}`;
    this.#replicasAsked.set(key, (this.#replicasAsked.get(key) ?? 0) + asked);
    const names = new Set([...this.#live.values()].map((entry) => entry.name));
    if (urls.length > 0 && urls.length < asked) {
      this.#lost += asked - urls.length;
      this.#example(`reply names ${urls.length} of the ${asked} asked`);
    }
    for (const url of urls) {
      const pod = url.split(".")[0] ?? "";
      if (names.has(pod)) continue;
      this.#lost += 1;
      this.#example(`reply names ${pod}, no such pod`);
    }
  }

  /** Replica pods of `job`/`role` created this row. */
  replicasCreated(job: string, role: string): number {
    return this.#replicasCreated.get(`${job}/${role}`) ?? 0;
  }

  /** The row's counts. Replicas created beyond what replies asked for are duplicates. */
  endRow(): RowLedger {
    let duplicated = 0;
    for (const [slot, extra] of this.#peaks) {
      duplicated += extra;
      this.#example(`${slot}×${extra + 1} at once`);
    }
    for (const [key, asked] of this.#replicasAsked) {
      const beyond = (this.#replicasCreated.get(key) ?? 0) - asked;
      if (beyond <= 0) continue;
      duplicated += beyond;
      this.#example(`${key}: ${beyond} created beyond the ${asked} asked`);
    }
    return { created: this.#created, replies: this.#replies, lost: this.#lost, duplicated, examples: this.#examples.slice(0, 5) };
  }

  /** Over the whole run: objects created, replies recorded. */
  get totals(): { readonly created: number; readonly replies: number } {
    return { created: this.#everCreated, replies: this.#everReplies };
  }

  #seen(event: ClusterEvent): void {
    const object = event.object;
    if (object.metadata.namespace !== this.#namespace || !KINDS.has(object.kind)) return;
    const uid = `${object.kind}/${object.metadata.uid ?? object.metadata.name ?? ""}`;
    const before = this.#live.get(uid);
    if (event.type === "ADDED" && !before) this.#born(object);
    this.#fill(before?.keys ?? [], -1);
    if (event.type === "DELETED") {
      this.#live.delete(uid);
      return;
    }
    const keys = slotKeys(object.kind as SlotKind, object);
    this.#live.set(uid, { name: object.metadata.name ?? "", keys });
    this.#fill(keys, 1);
  }

  #born(object: KubeObject): void {
    this.#created += 1;
    this.#everCreated += 1;
    const replica = replicaOf(object);
    if (!replica) return;
    const key = `${replica.job}/${replica.role}`;
    this.#replicasCreated.set(key, (this.#replicasCreated.get(key) ?? 0) + 1);
  }

  #fill(keys: readonly string[], by: 1 | -1): void {
    for (const key of keys) {
      const now = (this.#filled.get(key) ?? 0) + by;
      if (now <= 0) this.#filled.delete(key);
      else this.#filled.set(key, now);
      if (now > 1) this.#peaks.set(key, Math.max(this.#peaks.get(key) ?? 0, now - 1));
    }
  }

  #example(text: string): void {
    if (this.#examples.length < 5) this.#examples.push(text);
  }
}

/** The NerveX job and role of a replica pod the replicas API created (its labels), if it is one. */
function replicaOf(object: KubeObject): ReplicaOf | undefined {
  if (object.kind !== "Pod") return undefined;
  const labels = object.metadata.labels ?? {};
  const job = labels["nervexjob-name"];
  const role = labels["replica-type"];
  return job && (role === "collector" || role === "learner" || role === "aggregator") ? { job, role } : undefined;
}
