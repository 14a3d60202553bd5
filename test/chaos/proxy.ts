/**
 * A TCP proxy on 127.0.0.1 between the relay and the Worker, to cut their connection:
 * `cut()` drops every open connection and refuses new ones (accepted, then reset) until
 * `resume()`.
 */
import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/** A running proxy. */
export interface TcpProxy {
  /** `http://127.0.0.1:P`: the URL to give the relay instead of the Worker's. */
  readonly url: string;
  cut(): void;
  resume(): void;
  readonly isCut: boolean;
  close(): Promise<void>;
}

/** Proxies 127.0.0.1:(a free port) to `target` (`http://host:port`). */
export async function startProxy(target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  let cut = false;
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
    },
    get isCut(): boolean {
      return cut;
    },
    async close(): Promise<void> {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
