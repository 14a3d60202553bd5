import assert from "node:assert/strict";
import { test } from "node:test";
import { chooseLogFormat, createLogger, textLine } from "./log.ts";

test("the format: as asked, else text on a terminal and JSON lines when piped", () => {
  assert.equal(chooseLogFormat(undefined, true), "text");
  assert.equal(chooseLogFormat(undefined, false), "json");
  assert.equal(chooseLogFormat(undefined, undefined), "json", "stdout redirected to a file has no isTTY");
  assert.equal(chooseLogFormat("json", true), "json");
  assert.equal(chooseLogFormat("text", false), "text");
});

test("JSON lines parse, with time, level, component, message and fields; below the threshold nothing is written", () => {
  const lines: string[] = [];
  const log = createLogger("info", "relay", { format: "json", write: (l) => lines.push(l) });
  log("debug", "hidden");
  log("info", "created Pod default/x", { controller: "c" });
  assert.equal(lines.length, 1);
  const entry = JSON.parse(lines[0] ?? "") as Record<string, unknown>;
  assert.deepEqual({ ...entry, time: undefined }, { time: undefined, level: "info", component: "relay", msg: "created Pod default/x", controller: "c" });
  assert.match(String(entry.time), /^\d{4}-\d\d-\d\dT/);
});

test("text lines read as a sentence, fields after it as key=value, quoted only when needed", () => {
  const at = new Date(2026, 0, 2, 13, 4, 5);
  assert.equal(textLine(at, "info", "relay", "created Pod default/x for Job default/y", {}), "13:04:05 info  relay created Pod default/x for Job default/y");
  assert.equal(textLine(at, "warn", "sim", "watch error", { informer: "v1/pods", error: "socket hang up", n: 2, gone: undefined }), '13:04:05 warn  sim   watch error  informer=v1/pods error="socket hang up" n=2');
  const lines: string[] = [];
  createLogger("info", "start", { format: "text", write: (l) => lines.push(l) })("error", "failed", { error: new Error("boom") });
  assert.match(lines[0] ?? "", /^\d\d:\d\d:\d\d error start failed {2}error="boom"$/);
});
