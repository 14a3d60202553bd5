import type { StoreEvent } from "./store.ts";

/** A bounded ring of the latest committed events, for watches that resume from a resourceVersion. */
export class EventHistory {
  readonly #capacity: number;
  readonly #ring: (StoreEvent | undefined)[];
  #start = 0;
  #size = 0;
  /** Events at or below this resourceVersion are no longer held. */
  #compactedThrough = 0;

  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
    this.#ring = new Array<StoreEvent | undefined>(this.#capacity);
  }

  /** Appends an event, evicting the oldest when full. */
  push(event: StoreEvent): void {
    if (this.#size === this.#capacity) {
      const evicted = this.#ring[this.#start];
      if (evicted) this.#compactedThrough = evicted.rv;
      this.#ring[this.#start] = event;
      this.#start = (this.#start + 1) % this.#capacity;
      return;
    }
    this.#ring[(this.#start + this.#size) % this.#capacity] = event;
    this.#size += 1;
  }

  /** Forgets every event up to `rv` (all of them by default), as etcd compaction does. */
  compact(rv: number): void {
    const kept = this.#all().filter((e) => e.rv > rv);
    this.#ring.fill(undefined);
    this.#start = 0;
    this.#size = 0;
    this.#compactedThrough = Math.max(this.#compactedThrough, rv);
    for (const e of kept) this.push(e);
  }

  /** The events after `rv`, or "gone" when some of them were already evicted. */
  since(rv: number): StoreEvent[] | "gone" {
    if (rv < this.#compactedThrough) return "gone";
    const out: StoreEvent[] = [];
    for (let i = 0; i < this.#size; i++) {
      const e = this.#ring[(this.#start + i) % this.#capacity];
      if (e && e.rv > rv) out.push(e);
    }
    return out;
  }

  /** The oldest resourceVersion a watch may still start from. */
  get compactedThrough(): number {
    return this.#compactedThrough;
  }

  #all(): StoreEvent[] {
    const out: StoreEvent[] = [];
    for (let i = 0; i < this.#size; i++) {
      const e = this.#ring[(this.#start + i) % this.#capacity];
      if (e) out.push(e);
    }
    return out;
  }
}
