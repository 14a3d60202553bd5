/**
 * Ports an entry point is told to listen on: checked before anything starts, so that a
 * taken one is a one-line error naming the flag to change, not a stack trace halfway
 * through starting.
 */
import { createServer } from "node:net";

/** A port and the flag that set it. */
export interface PortFlag {
  readonly flag: string;
  readonly port: number;
}

/** The one-line message for a taken port. */
export function portInUseMessage(port: number, flag: string): string {
  return `port ${port} is in use: pass ${flag} 0 or another port`;
}

/**
 * The ports the kernel hands out itself (to `listen(0)` and to outgoing connections): a
 * port picked for a server started later is chosen below them, or any `listen(0)` in
 * between may be given the same one (a stack's API port, picked before the Worker starts,
 * was taken that way by a server of the same process: EADDRINUSE under load).
 */
const EPHEMERAL_LOW = 32_768;
/** How many ports below the ephemeral range a pick is made from. */
const PICK_SPAN = 12_000;

/** A port free on `host` now, outside the kernel's ephemeral range, for a server started next. */
export async function freePort(host = "127.0.0.1", random: () => number = Math.random): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = EPHEMERAL_LOW - 1 - Math.floor(random() * PICK_SPAN);
    if (await portFree(port, host)) return port;
  }
  throw new Error(`no free port found below ${EPHEMERAL_LOW} on ${host} after 50 tries`);
}

/** Whether 127.0.0.1:`port` can be listened on now. */
export function portFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** The message for the first taken port among `ports` (0 picks a free one, never taken), or undefined. */
export async function takenPort(ports: readonly PortFlag[], host = "127.0.0.1"): Promise<string | undefined> {
  for (const { flag, port } of ports) {
    if (port !== 0 && !(await portFree(port, host))) return portInUseMessage(port, flag);
  }
  return undefined;
}

/** The message for an EADDRINUSE error of one of `ports` (a port taken after the check), or undefined for any other error. */
export function addressInUse(error: unknown, ports: readonly PortFlag[]): string | undefined {
  const e = error as { code?: unknown; port?: unknown; message?: unknown } | undefined;
  const inUse = e?.code === "EADDRINUSE" || (typeof e?.message === "string" && /address already in use/i.test(e.message));
  if (!inUse) return undefined;
  const match = ports.find((p) => p.port !== 0 && (p.port === e?.port || (typeof e?.message === "string" && e.message.includes(`:${p.port}`))));
  return match ? portInUseMessage(match.port, match.flag) : `a port is in use: ${String(e?.message ?? error)}`;
}
