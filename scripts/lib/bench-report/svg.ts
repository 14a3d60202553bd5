/**
 * A small SVG renderer: a horizontal grouped bar chart and a line chart, pure functions of
 * their data. Hand-written rather than a charting library: none is installed (the
 * dependencies are frozen for this work), the maintained ones are either large (Vega,
 * ECharts: a headless browser or canvas for SVG output) or need a DOM (d3 in Node needs
 * jsdom), and two chart shapes of plain SVG text take less code than either.
 */

/** One bar: its label in the legend (`p50`), its value, and a bound to mark on it. */
export interface Bar {
  readonly label: string;
  readonly value: number;
  readonly target?: number;
}

/** A row of bars sharing a label (`self_heal_ms`: its p50 and p99). */
export interface BarGroup {
  readonly label: string;
  readonly bars: readonly Bar[];
}

/** A horizontal grouped bar chart. */
export interface BarChart {
  readonly title: string;
  /** The value axis's label (`ms`, `1/s`). */
  readonly valueLabel: string;
  readonly groups: readonly BarGroup[];
  /** The order of the bar labels in the legend (default: as they first appear). */
  readonly legend?: readonly string[];
}

/** One line of a line chart. */
export interface LineSeries {
  readonly name: string;
  readonly points: readonly { readonly x: number; readonly y: number }[];
}

/**
 * A line chart; x on a log scale when `logX` (sizes from 100 to 10,000). A few points
 * (a curve of sizes) get their values printed and their x as ticks; a `dense` series (a
 * time series) gets round x ticks and no labels.
 */
export interface LineChart {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly LineSeries[];
  readonly logX?: boolean;
  readonly dense?: boolean;
}

const COLOURS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#edc948", "#9c755f"];
const FONT = `font-family="ui-monospace, Menlo, Consolas, monospace" font-size="12"`;
/** Approximate width of one character of the 12 px monospace font, for layout. */
const CHAR_WIDTH = 7.2;

/** `text` safe inside an SVG element or attribute. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");
}

/** A number as the charts print it: at most 3 significant decimals, thousands unseparated. */
export function formatValue(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  const digits = abs >= 100 || Number.isInteger(value) ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return String(Number(value.toFixed(digits)));
}

/** Round tick values from 0 to at least `max` (about `count` of them). */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power);
  const ticks: number[] = [];
  for (let tick = 0; tick < max + step * 0.999; tick += step) ticks.push(Number(tick.toPrecision(12)));
  return ticks;
}

function text(x: number, y: number, content: string, attributes = ""): string {
  return `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attributes}>${escapeXml(content)}</text>`;
}

function svgDocument(width: number, height: number, title: string, body: readonly string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT}>`,
    `<title>${escapeXml(title)}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    text(width / 2, 20, title, `text-anchor="middle" font-size="14" font-weight="bold"`),
    ...body,
    `</svg>`,
    "",
  ].join("\n");
}

/** A horizontal grouped bar chart as SVG text: one row per group, a legend of bar labels, each value printed at its bar's end, a target as a red mark. */
export function renderBarChart(chart: BarChart): string {
  const legend = [...new Set([...(chart.legend ?? []), ...chart.groups.flatMap((group) => group.bars.map((bar) => bar.label))])];
  const colour = (label: string): string => COLOURS[legend.indexOf(label) % COLOURS.length] ?? "#000";
  const barHeight = 14;
  // As wide as the longest row label: a long metric name is never cut off.
  const left = 16 + CHAR_WIDTH * Math.max(8, ...chart.groups.map((group) => group.label.length));
  const plotWidth = 420;
  const right = 70;
  const top = 34 + (legend.length > 1 ? 20 : 0);
  const groupHeights = chart.groups.map((group) => group.bars.length * (barHeight + 2) + 10);
  const plotHeight = groupHeights.reduce((sum, h) => sum + h, 0);
  const width = left + plotWidth + right;
  const height = top + plotHeight + 44;
  const max = Math.max(0, ...chart.groups.flatMap((group) => group.bars.flatMap((bar) => [bar.value, bar.target ?? 0])));
  const ticks = niceTicks(max);
  const scaleMax = ticks[ticks.length - 1] ?? 1;
  const xOf = (value: number): number => left + (Math.max(0, value) / scaleMax) * plotWidth;
  const body: string[] = [];
  if (legend.length > 1) {
    legend.forEach((label, i) => {
      const x = left + i * 80;
      body.push(`<rect x="${x}" y="30" width="12" height="12" fill="${colour(label)}"/>`, text(x + 16, 40, label));
    });
  }
  for (const tick of ticks) {
    const x = xOf(tick);
    body.push(`<line x1="${x.toFixed(1)}" y1="${top}" x2="${x.toFixed(1)}" y2="${top + plotHeight}" stroke="#e0e0e0"/>`, text(x, top + plotHeight + 16, formatValue(tick), `text-anchor="middle"`));
  }
  body.push(`<line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotHeight}" stroke="#333"/>`, `<line x1="${left}" y1="${top + plotHeight}" x2="${left + plotWidth}" y2="${top + plotHeight}" stroke="#333"/>`);
  body.push(text(left + plotWidth / 2, top + plotHeight + 36, chart.valueLabel, `text-anchor="middle" class="axis-label"`));
  let y = top + 5;
  chart.groups.forEach((group, g) => {
    const h = groupHeights[g] ?? 0;
    body.push(text(left - 8, y + (h - 10) / 2 + 4, group.label, `text-anchor="end"`));
    group.bars.forEach((bar, b) => {
      const barY = y + b * (barHeight + 2);
      const barWidth = Math.max(0.5, xOf(bar.value) - left);
      body.push(`<rect x="${left}" y="${barY}" width="${barWidth.toFixed(1)}" height="${barHeight}" fill="${colour(bar.label)}"><title>${escapeXml(`${group.label} ${bar.label}: ${formatValue(bar.value)} ${chart.valueLabel}`)}</title></rect>`);
      body.push(text(left + barWidth + 4, barY + barHeight - 3, formatValue(bar.value), `font-size="11"`));
      if (bar.target !== undefined) {
        const tx = xOf(bar.target);
        body.push(`<line x1="${tx.toFixed(1)}" y1="${barY - 1}" x2="${tx.toFixed(1)}" y2="${barY + barHeight + 1}" stroke="#d62728" stroke-width="2"><title>target ${escapeXml(formatValue(bar.target))}</title></line>`);
      }
    });
    y += h;
  });
  return svgDocument(width, height, chart.title, body);
}

/** A line chart as SVG text: one polyline per series with its points and their values, axes labelled, a legend when there are several series. */
export function renderLineChart(chart: LineChart): string {
  const width = 680;
  const height = 380;
  const margin = { left: 70, right: 150, top: 36, bottom: 50 };
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const points = chart.series.flatMap((series) => series.points);
  const xs = [...new Set(points.map((point) => point.x))].sort((a, b) => a - b);
  const dense = chart.dense === true;
  const log = !dense && chart.logX === true && xs.length > 0 && (xs[0] ?? 0) > 0;
  const xTicks = dense ? niceTicks(xs[xs.length - 1] ?? 1) : xs;
  const [xMin, xMax] = dense ? [0, xTicks[xTicks.length - 1] ?? 1] : [xs[0] ?? 0, xs[xs.length - 1] ?? 1];
  const span = (value: number): number => (log ? Math.log10(value) : value);
  const xOf = (x: number): number => margin.left + (xMax === xMin ? plotWidth / 2 : ((span(x) - span(xMin)) / (span(xMax) - span(xMin))) * plotWidth);
  const yTicks = niceTicks(Math.max(0, ...points.map((point) => point.y)));
  const yMax = yTicks[yTicks.length - 1] ?? 1;
  const yOf = (y: number): number => margin.top + plotHeight - (Math.max(0, y) / yMax) * plotHeight;
  const body: string[] = [];
  for (const tick of yTicks) {
    const y = yOf(tick);
    body.push(`<line x1="${margin.left}" y1="${y.toFixed(1)}" x2="${margin.left + plotWidth}" y2="${y.toFixed(1)}" stroke="#e0e0e0"/>`, text(margin.left - 6, y + 4, formatValue(tick), `text-anchor="end"`));
  }
  // A curve's x ticks are the measured sizes themselves: it is drawn only where it was measured.
  for (const x of xTicks) body.push(text(xOf(x), margin.top + plotHeight + 16, formatValue(x), `text-anchor="middle"`));
  body.push(`<line x1="${margin.left}" y1="${margin.top}" x2="${margin.left}" y2="${margin.top + plotHeight}" stroke="#333"/>`, `<line x1="${margin.left}" y1="${margin.top + plotHeight}" x2="${margin.left + plotWidth}" y2="${margin.top + plotHeight}" stroke="#333"/>`);
  body.push(text(margin.left + plotWidth / 2, height - 12, `${chart.xLabel}${log ? " (log scale)" : ""}`, `text-anchor="middle" class="axis-label"`));
  body.push(text(16, margin.top + plotHeight / 2, chart.yLabel, `text-anchor="middle" class="axis-label" transform="rotate(-90 16 ${(margin.top + plotHeight / 2).toFixed(1)})"`));
  chart.series.forEach((series, i) => {
    const colour = COLOURS[i % COLOURS.length] ?? "#000";
    const sorted = [...series.points].sort((a, b) => a.x - b.x);
    body.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${sorted.map((p) => `${xOf(p.x).toFixed(1)},${yOf(p.y).toFixed(1)}`).join(" ")}"/>`);
    for (const point of sorted) {
      body.push(`<circle cx="${xOf(point.x).toFixed(1)}" cy="${yOf(point.y).toFixed(1)}" r="${dense ? 1.5 : 3.5}" fill="${colour}"><title>${escapeXml(`${series.name} at ${formatValue(point.x)}: ${formatValue(point.y)}`)}</title></circle>`);
      if (!dense) body.push(text(xOf(point.x), yOf(point.y) - 8, formatValue(point.y), `text-anchor="middle" font-size="11"`));
    }
    if (chart.series.length > 1) {
      const ly = margin.top + 10 + i * 18;
      body.push(`<rect x="${margin.left + plotWidth + 14}" y="${ly - 9}" width="12" height="12" fill="${colour}"/>`, text(margin.left + plotWidth + 30, ly + 1, series.name));
    }
  });
  return svgDocument(width, height, chart.title, body);
}
