import assert from "node:assert/strict";
import { test } from "node:test";
import { splitPortFlags } from "./port-flags.ts";

const KNOWN = new Set(["api-port", "api-host", "ops-port"]);

test("named port and host flags are split out, in both spellings; the command's own flags stay", () => {
  const split = splitPortFlags(["--api-port", "8080", "--edge-gm-port", "9000", "--edge-gm-host=10.0.0.1", "--ops-port=1", "--other-port=0", "--log-level", "debug"], KNOWN);
  assert.deepEqual(split.rest, ["--api-port", "8080", "--ops-port=1", "--log-level", "debug"]);
  assert.deepEqual(split.endpoints, { "edge-gm": { port: 9000, host: "10.0.0.1" }, other: { port: 0 } });
  assert.deepEqual(split.errors, []);
});

test("a bad port, an empty host or a missing value is an error naming the flag; the last value wins", () => {
  const split = splitPortFlags(["--a-port", "70000", "--b-port=x", "--c-host=", "--d-port", "--e-port", "1", "--e-port", "2", "--f-host"], KNOWN);
  assert.deepEqual(split.errors, ['--a-port: expected a port (0-65535), got "70000"', '--b-port: expected a port (0-65535), got "x"', "--c-host: expected a host", "--d-port: expected a value", "--f-host: expected a value"]);
  assert.deepEqual(split.endpoints, { e: { port: 2 } });
  assert.deepEqual(split.rest, []);
});

test("other arguments, and flags that only look alike, are left to parseArgs", () => {
  const split = splitPortFlags(["--port", "1", "--Upper-port", "2", "--x-ports", "3", "-h"], KNOWN);
  assert.deepEqual(split.rest, ["--port", "1", "--Upper-port", "2", "--x-ports", "3", "-h"]);
  assert.deepEqual(split.endpoints, {});
});
