/**
 * The Worker isolate's V8 heap, read through workerd's inspector (the Chrome DevTools
 * protocol's `Runtime.getHeapUsage`): the heap in use at the moment of reading, garbage not
 * yet collected included. workerd answers between the isolate's turns, so a reading after
 * a request is the heap that request left, its garbage with it.
 */

/** A session with the isolate of the Worker's script (`core:user:`). */
export class HeapReader {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, (result: unknown) => void>();
  #next = 0;
  /** The largest reading so far (bytes). */
  peakBytes = 0;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
      if (message.id !== undefined) this.#pending.get(message.id)?.(message.result);
      if (message.id !== undefined) this.#pending.delete(message.id);
    });
  }

  /** Connects to the inspector on `port`. */
  static async connect(port: number): Promise<HeapReader> {
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as { id: string; webSocketDebuggerUrl: string }[];
    const target = targets.find((t) => t.id === "core:user:");
    if (!target) throw new Error(`workerd's inspector on ${port} lists no core:user: isolate (${targets.map((t) => t.id).join(", ")})`);
    const socket = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => resolve(), { once: true });
      socket.addEventListener("error", () => reject(new Error(`inspector ${target.webSocketDebuggerUrl} refused`)), { once: true });
    });
    return new HeapReader(socket);
  }

  /** The heap in use now (bytes); the peak is kept. */
  async read(): Promise<number> {
    const id = (this.#next += 1);
    const result = await new Promise<unknown>((resolve) => {
      this.#pending.set(id, resolve);
      this.#socket.send(JSON.stringify({ id, method: "Runtime.getHeapUsage" }));
    });
    const used = (result as { usedSize?: number } | undefined)?.usedSize ?? 0;
    this.peakBytes = Math.max(this.peakBytes, used);
    return used;
  }

  close(): void {
    this.#socket.close();
  }
}
