/**
 * Which figures make which chart: latency percentiles (a metric naming p50/p90/p99/max...)
 * per bench, throughput (a unit per second) across benches, and curves (figures carrying
 * a `series` and an `x`) per bench and axis.
 */
import { targetBound, type Figure } from "./figure.ts";
import { renderBarChart, renderLineChart, type BarGroup, type LineSeries } from "./svg.ts";

/** A chart to write: its file name in the results folder, its title (alt text) and SVG. */
export interface RenderedChart {
  readonly file: string;
  /** The bench it shows, when it shows one alone. */
  readonly bench?: string;
  readonly title: string;
  readonly svg: string;
}

/** The percentile-like token a latency metric names, e.g. `p99` in `self_heal_p99_ms`. */
const PERCENTILE = /(?:^|_)(p\d{1,3}(?:\.\d+)?|max|min|mean|median)(?=_|$)/;
/** Units of time a latency chart may hold. */
const TIME_UNITS = new Set(["ms", "s", "us", "µs", "ns"]);

/** The latency row and percentile of a figure (`self_heal_ms`, `p99`), or `undefined` when it is no latency percentile. */
export function latencyKey(figure: Figure): { row: string; percentile: string } | undefined {
  if (!TIME_UNITS.has(figure.unit) || figure.x !== undefined) return undefined;
  const match = PERCENTILE.exec(figure.metric);
  if (match === null) return undefined;
  const row = figure.metric.replace(match[0], "").replace(/^_/, "").replace(/__+/g, "_");
  return { row, percentile: match[1] ?? "" };
}

/** Whether a figure is a rate (per second). */
export function isThroughput(figure: Figure): boolean {
  return /^(1\/s|\/s|.+\/s)$/.test(figure.unit) && figure.x === undefined;
}

/** A safe file-name part. */
function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "x";
}

/** Grouped bars of the latency percentiles of one bench, rows in first-reported order, each in its unit. */
function latencyCharts(figures: readonly Figure[]): RenderedChart[] {
  const charts: RenderedChart[] = [];
  for (const bench of [...new Set(figures.map((figure) => figure.bench))]) {
    // One chart per unit: ms and s on one axis would flatten the smaller.
    const byUnit = new Map<string, Map<string, { label: string; value: number; target?: number }[]>>();
    let hasPercentile = false;
    for (const figure of figures) {
      if (figure.bench !== bench) continue;
      const key = latencyKey(figure);
      if (key === undefined) continue;
      if (/^p\d/.test(key.percentile)) hasPercentile = true;
      const rows = byUnit.get(figure.unit) ?? new Map<string, { label: string; value: number; target?: number }[]>();
      byUnit.set(figure.unit, rows);
      const target = targetBound(figure.target);
      rows.set(key.row, [...(rows.get(key.row) ?? []), { label: key.percentile, value: figure.value, ...(target === undefined ? {} : { target }) }]);
    }
    if (!hasPercentile) continue;
    for (const [unit, rows] of byUnit) {
      const groups: BarGroup[] = [...rows].map(([label, bars]) => ({ label, bars: [...bars].sort((a, b) => percentileRank(a.label) - percentileRank(b.label)) }));
      const title = `${bench}: latency percentiles (${unit})`;
      const suffix = byUnit.size > 1 ? `-${slug(unit)}` : "";
      const legend = [...new Set(groups.flatMap((group) => group.bars.map((bar) => bar.label)))].sort((a, b) => percentileRank(a) - percentileRank(b));
      charts.push({ file: `latency-${slug(bench)}${suffix}.svg`, bench, title, svg: renderBarChart({ title, valueLabel: unit, groups, legend }) });
    }
  }
  return charts;
}

/** Sort order of percentile labels: min, p50, median, mean, p90, p99, max. */
function percentileRank(label: string): number {
  if (label === "min") return -1;
  if (label === "median") return 50;
  if (label === "mean") return 50.5;
  if (label === "max") return 1000;
  return Number(label.slice(1));
}

/** Every rate of every bench, one bar each, per unit. */
function throughputCharts(figures: readonly Figure[]): RenderedChart[] {
  const byUnit = new Map<string, BarGroup[]>();
  for (const figure of figures.filter(isThroughput)) {
    const target = targetBound(figure.target);
    byUnit.set(figure.unit, [...(byUnit.get(figure.unit) ?? []), { label: `${figure.bench}: ${figure.metric}`, bars: [{ label: figure.unit, value: figure.value, ...(target === undefined ? {} : { target }) }] }]);
  }
  return [...byUnit].map(([unit, groups]) => {
    const title = `throughput (${unit})`;
    return { file: byUnit.size > 1 ? `throughput-${slug(unit)}.svg` : "throughput.svg", title, svg: renderBarChart({ title, valueLabel: unit, groups }) };
  });
}

/** Line charts of the figures with a series and an x: one per bench, x unit and unit; one line per series. */
function curveCharts(figures: readonly Figure[]): RenderedChart[] {
  const charts = new Map<string, { bench: string; xUnit: string; unit: string; series: Map<string, { x: number; y: number }[]> }>();
  for (const figure of figures) {
    if (figure.series === undefined || figure.x === undefined) continue;
    const xUnit = figure.xUnit ?? "x";
    const key = JSON.stringify([figure.bench, xUnit, figure.unit]);
    const chart = charts.get(key) ?? { bench: figure.bench, xUnit, unit: figure.unit, series: new Map<string, { x: number; y: number }[]>() };
    charts.set(key, chart);
    chart.series.set(figure.series, [...(chart.series.get(figure.series) ?? []), { x: figure.x, y: figure.value }]);
  }
  return [...charts.values()].map((chart) => {
    const series: LineSeries[] = [...chart.series].map(([name, points]) => ({ name, points }));
    const xs = series.flatMap((s) => s.points.map((p) => p.x));
    const logX = Math.min(...xs) > 0 && Math.max(...xs) / Math.min(...xs) >= 20;
    const names = series.map((s) => s.name).join(", ");
    const title = `${chart.bench}: ${names} by ${chart.xUnit}`;
    return {
      file: `curve-${slug(chart.bench)}-${slug(series.length === 1 ? names : chart.unit)}-by-${slug(chart.xUnit)}.svg`,
      bench: chart.bench,
      title,
      svg: renderLineChart({ title, xLabel: chart.xUnit, yLabel: chart.unit, series, logX }),
    };
  });
}

/** Every chart the figures make. */
export function renderCharts(figures: readonly Figure[]): RenderedChart[] {
  return [...latencyCharts(figures), ...throughputCharts(figures), ...curveCharts(figures)];
}
