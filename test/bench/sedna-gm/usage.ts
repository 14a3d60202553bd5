/**
 * CPU and memory of named processes over a run (the relay and workerd for edgeloop, the
 * GlobalManager for upstream): CPU time from `/proc/PID/stat` between the start and the
 * end, resident memory sampled every {@link SAMPLE_MS} ms (peak and mean), and how busy
 * the whole machine was meanwhile (shared with other work: a figure to read beside it).
 */
import { rssMiB } from "../../../scripts/lib/soak/proc.ts";
import { cpuSample } from "../util.ts";

const SAMPLE_MS = 500;

/** One process's use over the run; CPU undefined where `/proc` did not tell. */
export interface ProcessUse {
  readonly cpuMs: number | undefined;
  /** CPU time over wall time, % of one core. */
  readonly cpuPercent: number | undefined;
  readonly rssPeakMiB: number | undefined;
  readonly rssMeanMiB: number | undefined;
}

/** What {@link measureUse}'s stop returns. */
export interface RunUse {
  readonly wallMs: number;
  /** Busy share of all the machine's cores, %. */
  readonly machineBusyPercent: number;
  readonly processes: Readonly<Record<string, ProcessUse>>;
}

/** Starts measuring `pids` (name → pid); call the function it returns to stop and read. */
export function measureUse(pids: Readonly<Record<string, number | undefined>>): () => RunUse {
  const started = performance.now();
  const cpu = cpuSample(pids);
  const samples = new Map<string, number[]>(Object.keys(pids).map((name) => [name, []]));
  const sample = (): void => {
    for (const [name, pid] of Object.entries(pids)) {
      const rss = rssMiB(pid);
      if (rss !== undefined) samples.get(name)?.push(rss);
    }
  };
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  return () => {
    clearInterval(timer);
    sample();
    const wallMs = performance.now() - started;
    const used = cpu();
    const processes = Object.fromEntries(
      Object.keys(pids).map((name) => {
        const rss = samples.get(name) ?? [];
        const cpuMs = used.othersMs[name];
        return [name, { cpuMs, cpuPercent: cpuMs === undefined ? undefined : (cpuMs / Math.max(1, wallMs)) * 100, rssPeakMiB: rss.length ? Math.max(...rss) : undefined, rssMeanMiB: rss.length ? rss.reduce((a, b) => a + b, 0) / rss.length : undefined }];
      }),
    );
    return { wallMs, machineBusyPercent: used.machineBusy * 100, processes };
  };
}
