/**
 * A bound on the bytes of request bodies in flight to the Worker. The relay's concurrency
 * bounds how many deliveries run at once, not how large they are: at the first delivery
 * of a 100,000-pod cluster every lane carries a node's snapshot of 1,000 pods, and the
 * bodies, their signing copies and the socket buffers of 32 such requests at once pushed
 * the relay's peak resident memory ~80 MiB above what the same work took 4 at a time
 * (issue 16 item 5). Waiters are served in order; a body larger than the whole budget
 * goes alone, so nothing waits for ever. Its user reserves room before it builds a body
 * (the Worker client's bulk deliveries: ADR 0018), or the bodies waiting are held anyway.
 */
export class ByteBudget {
  readonly #limit: number;
  #inFlight = 0;
  readonly #waiting: { readonly bytes: number; readonly go: () => void }[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Bytes held now (for tests). */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Waits until `bytes` fit (at once when nothing else is held), holds them; call the function returned, once, to give them back. */
  async acquire(bytes: number): Promise<() => void> {
    if (this.#waiting.length > 0 || !this.#fits(bytes)) await new Promise<void>((go) => this.#waiting.push({ bytes, go }));
    else this.#inFlight += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight -= bytes;
      this.#wake();
    };
  }

  #fits(bytes: number): boolean {
    return this.#inFlight === 0 || this.#inFlight + bytes <= this.#limit;
  }

  /** Lets waiters go in order while they fit: each is counted before it runs. */
  #wake(): void {
    while (this.#waiting.length > 0 && this.#fits(this.#waiting[0]?.bytes ?? 0)) {
      const next = this.#waiting.shift();
      if (!next) break;
      this.#inFlight += next.bytes;
      next.go();
    }
  }
}
