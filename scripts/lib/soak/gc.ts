/**
 * A full garbage collection before each sample, in this process and in the relay process,
 * so that the soak judges the memory still held after it (what a leak grows) rather than
 * a point on the GC's sawtooth, whose period (minutes, at a few hundred MiB) is as long as
 * the window judged. This process: V8's `gc()` exposed at run time; the relay process: the
 * inspector protocol's `HeapProfiler.collectGarbage`, over the `--inspect` port on
 * loopback the soak starts it with.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { z } from "zod";

/** A full GC of this process (V8's `gc`, exposed once); each call returns the V8 heap still used after it (MiB). */
export function localGc(): () => number {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  return () => {
    gc();
    return process.memoryUsage().heapUsed / 2 ** 20;
  };
}

const Targets = z.array(z.object({ webSocketDebuggerUrl: z.string() }));
const Reply = z.object({ id: z.number(), error: z.object({ message: z.string() }).optional(), result: z.unknown().optional() });

const HeapUsage = z.object({ usedSize: z.number() });

/** A session with the inspector of a process listening on `port`: `collect()` runs a full GC and resolves with the V8 heap still used after it (MiB). */
export async function inspectorGc(port: number): Promise<{ collect(): Promise<number>; close(): void }> {
  const [target] = Targets.parse(await (await fetch(`http://127.0.0.1:${port}/json/list`)).json());
  if (target === undefined) throw new Error(`no inspector target on port ${port}`);
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("open", () => resolve(), { once: true });
    socket.addEventListener("error", () => reject(new Error(`cannot open the inspector at ${target.webSocketDebuggerUrl}`)), { once: true });
  });
  const pending = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  socket.addEventListener("message", (event) => {
    const reply = Reply.safeParse(JSON.parse(String(event.data)));
    if (!reply.success) return; // a notification
    const waiter = pending.get(reply.data.id);
    pending.delete(reply.data.id);
    if (reply.data.error) waiter?.reject(new Error(reply.data.error.message));
    else waiter?.resolve(reply.data.result);
  });
  let id = 0;
  const call = (method: string): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const next = ++id;
      pending.set(next, { resolve, reject });
      socket.send(JSON.stringify({ id: next, method }));
    });
  return {
    async collect(): Promise<number> {
      await call("HeapProfiler.collectGarbage");
      return HeapUsage.parse(await call("Runtime.getHeapUsage")).usedSize / 2 ** 20;
    },
    close: () => socket.close(),
  };
}
