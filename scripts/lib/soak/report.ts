/** What the soak prints and writes: a progress line per sample, the final table, JSON lines, and an SVG of RSS over time. */
import { renderLineChart } from "../bench-report/svg.ts";
import type { Verdict } from "./verdict.ts";

/** One sample of the soak. */
export interface SoakSample {
  /** Seconds since the churn started. */
  readonly t: number;
  /** RSS of the relay and of the sim after a full GC of each (what is judged). */
  readonly relayMiB: number | undefined;
  readonly simMiB: number | undefined;
  /** Their RSS just before that GC (a point on the sawtooth). */
  readonly relayBeforeGcMiB: number | undefined;
  readonly simBeforeGcMiB: number | undefined;
  /** The V8 heap each still uses after that GC (JSON lines only: where RSS growth comes from). */
  readonly relayHeapMiB?: number;
  readonly simHeapMiB?: number;
  readonly workerdMiB: number | undefined;
  /** Snapshots and events batches the relay sent to the Worker per second since the last sample. */
  readonly workerRequestsPerSecond: number;
  /** Pods in the cluster. */
  readonly pods: number;
  /** Churn operations done so far, and failed. */
  readonly operations: number;
  readonly failures: number;
}

/** The processes judged, by name, with how to read their RSS from a sample. */
export const JUDGED = { relay: (s: SoakSample) => s.relayMiB, sim: (s: SoakSample) => s.simMiB } as const;

const tenth = (value: number | undefined): number | undefined => (value === undefined ? undefined : Math.round(value * 10) / 10);
const mib = (value: number | undefined): string => (value === undefined ? "?" : value.toFixed(1));

/** A sample as one progress line. */
export function progressLine(sample: SoakSample, minutes: number): string {
  const at = `${Math.floor(sample.t / 60)}:${String(Math.round(sample.t % 60)).padStart(2, "0")}`;
  return `soak ${at}/${minutes}:00  RSS after GC (before) relay ${mib(sample.relayMiB)} (${mib(sample.relayBeforeGcMiB)}) MiB, sim ${mib(sample.simMiB)} (${mib(sample.simBeforeGcMiB)}) MiB, workerd ${mib(sample.workerdMiB)} MiB; Worker ${sample.workerRequestsPerSecond.toFixed(1)} req/s; ${sample.pods} pods; ${sample.operations} churn ops (${sample.failures} failed)`;
}

/** The samples as a terminal table. */
export function samplesTable(samples: readonly SoakSample[]): string {
  const head = ["t (s)", "relay MiB", "(before GC)", "sim MiB", "(before GC)", "workerd MiB", "Worker req/s", "pods", "ops", "failed"];
  const rows = samples.map((s) => [String(Math.round(s.t)), mib(s.relayMiB), mib(s.relayBeforeGcMiB), mib(s.simMiB), mib(s.simBeforeGcMiB), mib(s.workerdMiB), s.workerRequestsPerSecond.toFixed(1), String(s.pods), String(s.operations), String(s.failures)]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c.padStart(widths[i] ?? 0)).join("  ");
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** The verdicts as lines a person reads. */
export function verdictLines(verdicts: Readonly<Record<string, Verdict>>, bounds: { maxGrowthMiBPerHour: number }): string[] {
  return Object.entries(verdicts).map(([process, v]) => {
    const name = process in JUDGED ? process : `${process} (reported, not judged)`;
    if (v.outcome === "too-short") return `${name.padEnd(6)} not judged: ${v.samples} samples after warm-up and in the second half (6 needed)`;
    const what = v.outcome === "grows" ? "GROWS" : "steady";
    return `${name.padEnd(6)} ${what}: judged samples from ${v.baseMiB.toFixed(1)} MiB, trend ${v.slopeMiBPerHour >= 0 ? "+" : ""}${v.slopeMiBPerHour.toFixed(1)} MiB/h (bound ${bounds.maxGrowthMiBPerHour}), level ${v.riseMiB >= 0 ? "+" : ""}${v.riseMiB.toFixed(1)} MiB, ${v.samples} samples`;
  });
}

/** Every sample and verdict as JSON lines (`kind`: `sample` or `verdict`). */
export function soakJsonLines(samples: readonly SoakSample[], verdicts: Readonly<Record<string, Verdict>>, meta: Readonly<Record<string, unknown>>): string {
  return [
    JSON.stringify({ kind: "run", ...meta }),
    ...samples.map((sample) => JSON.stringify({ kind: "sample", ...sample, relayMiB: tenth(sample.relayMiB), simMiB: tenth(sample.simMiB), relayBeforeGcMiB: tenth(sample.relayBeforeGcMiB), simBeforeGcMiB: tenth(sample.simBeforeGcMiB), relayHeapMiB: tenth(sample.relayHeapMiB), simHeapMiB: tenth(sample.simHeapMiB), workerdMiB: tenth(sample.workerdMiB) })),
    ...Object.entries(verdicts).map(([process, verdict]) => JSON.stringify({ kind: "verdict", process, judged: process in JUDGED, ...verdict })),
  ].join("\n") + "\n";
}

/** RSS of each process over time as SVG. */
export function rssChart(samples: readonly SoakSample[], minutes: number): string {
  const series = (
    [
      ["relay after GC", (s: SoakSample) => s.relayMiB],
      ["relay before", (s: SoakSample) => s.relayBeforeGcMiB],
      ["sim after GC", (s: SoakSample) => s.simMiB],
      ["sim before", (s: SoakSample) => s.simBeforeGcMiB],
      ["workerd", (s: SoakSample) => s.workerdMiB],
    ] as const
  ).map(([name, read]) => ({ name, points: samples.flatMap((s) => (read(s) === undefined ? [] : [{ x: Math.round(s.t), y: read(s) ?? 0 }])) }));
  return renderLineChart({ title: `soak: RSS over ${minutes} min of mixed churn`, xLabel: "seconds", yLabel: "RSS (MiB)", dense: true, series: series.filter((s) => s.points.length > 0) });
}
