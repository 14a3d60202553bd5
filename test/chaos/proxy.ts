/**
 * A TCP proxy on 127.0.0.1 between the relay and the Worker, to cut their connection:
 * `cut()` drops every open connection and refuses new ones (accepted, then reset) until
 * `resume()`. `dropAnswers` lets the next requests it selects (their request line starts
 * with `request`, their body holds `contains`) reach the Worker and drops each one's
 * answer (the connection reset as its first byte comes back): the Worker did the work,
 * the relay never heard.
 */
import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/** Which requests' answers to drop. */
export interface AnswerDrop {
  /** The start of the request line, e.g. `POST /v1/api/replicas`. */
  readonly request: string;
  /** Text the request (line, headers or body) must hold, e.g. a pod group's name. */
  readonly contains?: string;
  readonly count: number;
}

/** How much of a selected request is held to look for `contains`. */
const HELD_BYTES = 4 * 1024 * 1024;

/** A running proxy. */
export interface TcpProxy {
  /** `http://127.0.0.1:P`: the URL to give the relay instead of the Worker's. */
  readonly url: string;
  cut(): void;
  resume(): void;
  readonly isCut: boolean;
  /** Drops the answers of the next `count` requests `selector` selects (until `resume()`). */
  dropAnswers(selector: AnswerDrop): void;
  /** Answers dropped so far. */
  readonly dropped: number;
  close(): Promise<void>;
}

/** Proxies 127.0.0.1:(a free port) to `target` (`http://host:port`). */
export async function startProxy(target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  let cut = false;
  let drop: { selector: AnswerDrop; left: number } | undefined;
  let dropped = 0;
  const server: Server = createServer((client) => {
    if (cut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect({ host: hostname, port: Number(port) });
    open.add(client);
    open.add(upstream);
    const end = (): void => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    // The request going up this connection, from its request line, while it may be selected.
    let held: string | undefined;
    // Set when a request whose answer is to be dropped went up this connection.
    let dropNext = false;
    client.on("data", (chunk: Buffer) => {
      if (!drop || drop.left <= 0 || dropNext) return;
      const text = chunk.toString("latin1");
      const start = text.indexOf(drop.selector.request);
      if (start >= 0) held = text.slice(start);
      else if (held !== undefined && held.length < HELD_BYTES) held += text;
      if (held === undefined || !held.includes(drop.selector.contains ?? "")) return;
      drop.left -= 1;
      dropNext = true;
      held = undefined;
    });
    upstream.on("data", () => {
      held = undefined;
      if (!dropNext) return;
      dropped += 1;
      client.resetAndDestroy();
      end();
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    cut(): void {
      cut = true;
      for (const socket of open) socket.resetAndDestroy();
      open.clear();
    },
    resume(): void {
      cut = false;
      drop = undefined;
    },
    get isCut(): boolean {
      return cut;
    },
    dropAnswers(selector: AnswerDrop): void {
      drop = { selector, left: selector.count };
    },
    get dropped(): number {
      return dropped;
    },
    async close(): Promise<void> {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
