/** A slowloris-style client: holds a connection by sending a request a few bytes at a time. */
import { connect, type Socket } from "node:net";

/** What the slow client saw: how long the server kept the connection, and the status it answered, if any. */
export interface Held {
  /** Milliseconds from connect to the server closing the connection; `undefined` if it was still open at the deadline. */
  readonly heldMs: number | undefined;
  readonly status: number | undefined;
}

/**
 * Connects to `port` and trickles a request: the headers a line every `everyMs` (`part:
 * "headers"`), or complete headers then a body declared 1 MiB a byte every `everyMs`
 * (`part: "body"`), to `path`. Resolves when the server closes the connection or at `deadlineMs`.
 */
export function slowloris(port: number, part: "headers" | "body", everyMs: number, deadlineMs: number, path = "/"): Promise<Held> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket: Socket = connect(port, "127.0.0.1");
    let answer = "";
    let tick = 0;
    const timer = setInterval(() => socket.write(part === "headers" ? `x-slow-${tick++}: 1\r\n` : "x"), everyMs);
    const finish = (heldMs: number | undefined): void => {
      clearInterval(timer);
      clearTimeout(deadline);
      socket.destroy();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      resolve({ heldMs, status: status === undefined ? undefined : Number(status) });
    };
    const deadline = setTimeout(() => finish(undefined), deadlineMs);
    socket.on("connect", () => socket.write(part === "headers" ? `POST ${path} HTTP/1.1\r\nhost: x\r\n` : `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-length: 1048576\r\n\r\n`));
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    socket.on("error", () => undefined);
    socket.on("close", () => finish(performance.now() - started));
  });
}

/** Opens `count` idle connections to `port`; resolves with how many the server had closed once the first closed, or at `withinMs` (all are then closed). */
export async function idleConnections(port: number, count: number, withinMs: number): Promise<number> {
  const sockets: Socket[] = [];
  let closed = 0;
  let firstClosed = (): void => undefined;
  const anyClosed = new Promise<void>((resolve) => (firstClosed = resolve));
  await Promise.all(
    Array.from({ length: count }, () =>
      new Promise<void>((resolve) => {
        const socket = connect(port, "127.0.0.1", () => resolve());
        socket.on("error", () => resolve());
        socket.on("close", () => {
          closed += 1;
          firstClosed();
        });
        sockets.push(socket);
      }),
    ),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([anyClosed, new Promise<void>((resolve) => (timer = setTimeout(resolve, withinMs)))]);
  clearTimeout(timer);
  const result = closed;
  for (const socket of sockets) socket.destroy();
  return result;
}
