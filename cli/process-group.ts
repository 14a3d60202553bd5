/**
 * A terminal's Ctrl-C signals its whole foreground process group at once. An entry point
 * whose children must stop in order (npm start: the relay before workerd, which Miniflare
 * spawns in our group, so that no long poll of the relay finds the Worker gone) runs
 * itself again in a process group of its own; the first process stays in the terminal's
 * group and hands each SIGINT/SIGTERM on, so the stop keeps its order.
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";

/** Set in the copy's environment: it runs the entry point itself. */
const IN_OWN_GROUP = "EDGELOOP_OWN_PROCESS_GROUP";

/**
 * Returns at once in the copy; in the first process, runs the copy (same Node flags and
 * arguments, output shared), forwards SIGINT and SIGTERM to it, and exits with its status.
 * The copy stops itself (SIGTERM) when the first process dies without a word (SIGKILL).
 * `env`: the entry point's environment (the copy's, plus the marker).
 */
export async function runInOwnProcessGroup(env: NodeJS.ProcessEnv): Promise<void> {
  if (env[IN_OWN_GROUP] === "1") {
    // The IPC channel closes when the first process dies, however it died.
    process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
    process.channel?.unref();
    return;
  }
  const copy = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { detached: true, stdio: ["inherit", "inherit", "inherit", "ipc"], env: { ...env, [IN_OWN_GROUP]: "1" } });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => copy.kill(signal));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => copy.once("exit", (c, s) => resolve([c, s])));
  process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0));
}
