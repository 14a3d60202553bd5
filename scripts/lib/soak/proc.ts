/** Resident memory of processes, from `/proc` (Linux): the soak samples the relay, the sim and workerd separately. */
import { readdirSync, readFileSync } from "node:fs";

/** The resident set size of process `pid` in MiB (`VmRSS` of `/proc/PID/status`), or `undefined` (not Linux, or no such process). */
export function rssMiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The pid of a child of process `parent` whose command is `command` (`workerd`, started by Miniflare), or `undefined`. */
export function childPid(command: string, parent: number = process.pid): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  } catch {
    return undefined;
  }
  return entries.map(Number).find((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // The fields after the command name: state, then the parent's pid.
      return stat.includes(`(${command})`) && Number(stat.split(") ")[1]?.split(" ")[1]) === parent;
    } catch {
      return false;
    }
  });
}
