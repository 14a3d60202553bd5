/** What every scenario of the cluster bench is given: the figure reporter and the progress line of `npm run bench`. */
import type { Benchmark } from "../../../scripts/bench.ts";

export type Report = Parameters<Benchmark["run"]>[0];
export type Progress = (message: string) => void;
