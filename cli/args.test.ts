import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { parseCli, undocumentedFlags } from "./args.ts";

const spec = {
  name: "tool",
  help: "usage: tool [--port P] [--dry-run]\n\n  --port P      the port\n  --dry-run     print only",
  options: { port: { type: "string" as const }, "dry-run": { type: "boolean" as const }, "log-format": { type: "string" as const } },
  schema: z.object({ port: z.coerce.number().default(1), "dry-run": z.boolean().default(false), "log-format": z.string().optional() }),
};

test("a flag the help never names is reported (--help exits 1 with it), a prefix of another flag does not count", () => {
  assert.deepEqual(undocumentedFlags(spec), ["log-format"]);
  assert.deepEqual(undocumentedFlags({ ...spec, help: `${spec.help}\n  --log-format F` }), []);
  assert.deepEqual(undocumentedFlags({ help: "--dry-run-all", options: { "dry-run": { type: "boolean" } } }), ["dry-run"]);
});

test("parsing: flags, help, and errors naming the flag", () => {
  assert.deepEqual(parseCli(spec, ["--port", "8"]), { kind: "flags", flags: { port: 8, "dry-run": false } });
  assert.deepEqual(parseCli(spec, ["-h"]), { kind: "help" });
  assert.equal(parseCli(spec, ["--nope"]).kind, "error");
});
