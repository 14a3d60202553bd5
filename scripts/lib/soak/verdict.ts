/**
 * Whether a process's memory grows without bound over a soak, from its RSS samples.
 *
 * The criterion, per process, on the samples of the second half of the run, and not before
 * `warmupSeconds` (warm-up: JIT, caches and V8's old space growing to their working size;
 * on the local stack also the sim's watch history, 10,000 events, and the Events the soak
 * keeps for a minute, filling to their level):
 * 1. the trend: the Theil–Sen slope (the median of the slopes between every pair of
 *    samples), projected over an hour, exceeds `maxGrowthMiBPerHour`; and
 * 2. the level confirms it: the median of the last third of those samples exceeds the
 *    median of their first third by more than `minRiseMiB` (the noise floor of RSS) and
 *    by at least half of what the slope predicts between the two thirds.
 * A GC sawtooth is a few outliers to the median of pairwise slopes and leaves the medians
 * of the thirds where they were, so it meets neither; a leak raises both. Requiring both
 * keeps a slope fitted to noise over a short window (a projection magnifies it 60-fold for
 * one minute) from failing a run whose level did not move. With fewer than
 * {@link MIN_SAMPLES} samples in that window the run is too short to judge.
 */

/** One RSS sample: seconds since the soak started, MiB. */
export interface RssSample {
  readonly t: number;
  readonly mib: number;
}

/** The thresholds of the criterion. */
export interface GrowthBounds {
  readonly maxGrowthMiBPerHour: number;
  readonly minRiseMiB: number;
  /** Samples before this many seconds are never judged. */
  readonly warmupSeconds: number;
}

/** The defaults: 50 MiB per hour, a rise of the level of more than 2 MiB, 4 minutes of warm-up. */
export const DEFAULT_BOUNDS: GrowthBounds = { maxGrowthMiBPerHour: 50, minRiseMiB: 2, warmupSeconds: 240 };

/** Fewest samples in the second half to judge from. */
export const MIN_SAMPLES = 6;

/** The judgement on one process. */
export interface Verdict {
  /** `grows`: fails the soak; `steady`: passes; `too-short`: not judged. */
  readonly outcome: "grows" | "steady" | "too-short";
  /** The Theil–Sen slope of the judged samples (the second half, after warm-up), MiB per hour. */
  readonly slopeMiBPerHour: number;
  /** Median of the last third minus median of the first third of the judged samples, MiB. */
  readonly riseMiB: number;
  /** Median of the first third of the judged samples, MiB (the level the rise is measured from). */
  readonly baseMiB: number;
  readonly samples: number;
}

/** The median of `values` (0 for none). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** The Theil–Sen slope of `samples` (MiB per second): the median of the slopes between every pair at distinct times. */
export function theilSen(samples: readonly RssSample[]): number {
  const slopes: number[] = [];
  for (let i = 0; i < samples.length; i++) {
    for (let j = i + 1; j < samples.length; j++) {
      const [a, b] = [samples[i] as RssSample, samples[j] as RssSample];
      if (b.t !== a.t) slopes.push((b.mib - a.mib) / (b.t - a.t));
    }
  }
  return median(slopes);
}

/** The verdict on one process's samples (in time order). */
export function judgeGrowth(samples: readonly RssSample[], bounds: GrowthBounds = DEFAULT_BOUNDS): Verdict {
  const end = samples[samples.length - 1]?.t ?? 0;
  const start = samples[0]?.t ?? 0;
  const half = samples.filter((sample) => sample.t >= Math.max(start + (end - start) / 2, start + bounds.warmupSeconds));
  const slopeMiBPerHour = theilSen(half) * 3600;
  const third = Math.max(1, Math.floor(half.length / 3));
  const baseMiB = median(half.slice(0, third).map((s) => s.mib));
  const riseMiB = median(half.slice(-third).map((s) => s.mib)) - baseMiB;
  if (half.length < MIN_SAMPLES) return { outcome: "too-short", slopeMiBPerHour, riseMiB, baseMiB, samples: half.length };
  const trend = slopeMiBPerHour > bounds.maxGrowthMiBPerHour;
  // Seconds between the middles of the first and the last third.
  const span = median(half.slice(-third).map((s) => s.t)) - median(half.slice(0, third).map((s) => s.t));
  const level = riseMiB > bounds.minRiseMiB && riseMiB >= 0.5 * (slopeMiBPerHour / 3600) * span;
  return { outcome: trend && level ? "grows" : "steady", slopeMiBPerHour, riseMiB, baseMiB, samples: half.length };
}
