import assert from "node:assert/strict";
import { test } from "node:test";
import { checkXml, texts } from "./testing/xml.ts";
import { escapeXml, formatValue, niceTicks, renderBarChart, renderLineChart } from "./svg.ts";

test("checkXml accepts well-formed XML and refuses what is not", () => {
  checkXml(`<svg a="1"><g><text>x &amp; y</text></g><rect/></svg>`);
  assert.throws(() => checkXml(`<svg><g></svg>`));
  assert.throws(() => checkXml(`<svg><text>a < b</text></svg>`));
  assert.throws(() => checkXml(`<svg><text>a & b</text></svg>`));
  assert.throws(() => checkXml(`<svg a=1></svg>`));
});

test("escapeXml escapes the five XML specials", () => {
  assert.equal(escapeXml(`<a href="x">&'</a>`), "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
});

test("niceTicks covers the maximum with round steps", () => {
  assert.deepEqual(niceTicks(230), [0, 50, 100, 150, 200, 250]);
  assert.deepEqual(niceTicks(1), [0, 0.2, 0.4, 0.6, 0.8, 1]);
  assert.deepEqual(niceTicks(0), [0, 1]);
  for (const max of [0.003, 7, 99, 4210, 123456]) {
    const ticks = niceTicks(max);
    assert.ok((ticks[ticks.length - 1] ?? 0) >= max, String(max));
    assert.ok(ticks.length <= 12, String(max));
  }
});

test("formatValue keeps a few significant decimals", () => {
  assert.equal(formatValue(4210), "4210");
  assert.equal(formatValue(31.25), "31.3");
  assert.equal(formatValue(3.14159), "3.14");
  assert.equal(formatValue(0.0123), "0.012");
});

test("a bar chart is well-formed SVG with its title, axis label, rows, legend and every value", () => {
  const svg = renderBarChart({
    title: "relay: latency <percentiles> & more",
    valueLabel: "ms",
    legend: ["p50", "p99"],
    groups: [
      { label: "event_to_applied_ms", bars: [{ label: "p50", value: 3.2 }, { label: "p99", value: 41.7, target: 50 }] },
      { label: "self_heal_ms", bars: [{ label: "p50", value: 12 }, { label: "p99", value: 96.4 }] },
    ],
  });
  const names = checkXml(svg);
  assert.equal(names.filter((n) => n === "rect").length, 1 + 2 + 4, "background, legend swatches, bars");
  const all = texts(svg);
  assert.ok(all.includes("relay: latency &lt;percentiles&gt; &amp; more"));
  assert.ok(all.includes("ms"), "the value axis is labelled");
  for (const label of ["event_to_applied_ms", "self_heal_ms", "p50", "p99", "3.2", "41.7", "12", "96.4"]) assert.ok(all.includes(label), label);
  assert.match(svg, /<title>target 50<\/title>/);
  assert.ok(all.includes("0") && all.includes("100"), "value axis ticks");
});

test("a line chart is well-formed SVG with labelled axes, a point and value per measurement, the measured x as ticks", () => {
  const svg = renderLineChart({
    title: "gang: pass_ms by pending groups",
    xLabel: "pending groups",
    yLabel: "ms",
    logX: true,
    series: [{ name: "pass_ms", points: [{ x: 1000, y: 21.5 }, { x: 100, y: 2.1 }, { x: 10000, y: 240 }] }],
  });
  const names = checkXml(svg);
  assert.equal(names.filter((n) => n === "circle").length, 3);
  assert.equal(names.filter((n) => n === "polyline").length, 1);
  const all = texts(svg);
  assert.ok(all.includes("pending groups (log scale)"), "x axis labelled");
  assert.ok(all.includes("ms"), "y axis labelled");
  for (const value of ["100", "1000", "10000", "2.1", "21.5", "240"]) assert.ok(all.includes(value), value);
  // The points go left to right by x, whatever order they came in.
  const xs = (/points="([^"]+)"/.exec(svg)?.[1] ?? "").split(" ").map((p) => Number(p.split(",")[0]));
  assert.deepEqual([...xs].sort((a, b) => a - b), xs);
});

test("a line chart of several series has a legend; one of a single point does not divide by zero", () => {
  const svg = renderLineChart({ title: "t", xLabel: "deletions/s", yLabel: "ms", series: [{ name: "p50", points: [{ x: 50, y: 1 }] }, { name: "p99", points: [{ x: 50, y: 4 }] }] });
  checkXml(svg);
  assert.doesNotMatch(svg, /NaN|Infinity/);
  assert.ok(texts(svg).includes("p50") && texts(svg).includes("p99"));
});

test("a dense line chart (a time series) has round x ticks from 0 and no value labels", () => {
  const svg = renderLineChart({ title: "RSS", xLabel: "seconds", yLabel: "MiB", dense: true, series: [{ name: "relay", points: Array.from({ length: 13 }, (_, i) => ({ x: i * 10, y: 100 + i })) }, { name: "sim", points: [{ x: 0, y: 300 }, { x: 120, y: 310 }] }] });
  const names = checkXml(svg);
  assert.equal(names.filter((n) => n === "circle").length, 15);
  const all = texts(svg);
  for (const label of ["0", "25", "125", "seconds", "MiB", "relay", "sim"]) assert.ok(all.includes(label), label);
  assert.ok(!all.includes("101"), "no value labels");
});
