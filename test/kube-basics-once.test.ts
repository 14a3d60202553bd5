/**
 * Each Kubernetes basic exists once, in protocol/kube/ (ADR 0023): the code that parses an
 * apiVersion, finds a controller reference, checks a DNS name or parses a quantity is
 * written there and imported everywhere else. This scans the production code of every
 * side for the telltale lines of a copy, so that one written again fails here.
 */
import assert from "node:assert/strict";
import { globSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../scripts/lib/controllers.ts";

/** What a copy of a basic looks like, and where the one copy lives. */
const TELLTALES: readonly { readonly basic: string; readonly pattern: RegExp }[] = [
  { basic: "api-version.ts (group/version split)", pattern: /apiVersion\??\.split\(\s*"\/"\s*\)/ },
  { basic: "owner.ts (controller reference)", pattern: /ownerReferences[^\n]*\.(find|some|filter)\([^\n]*controller\s*===\s*true/ },
  { basic: "names.ts (DNS-1123 syntax)", pattern: /\[a-z0-9\]\(\[-a-z0-9(\.)?\]\*\[a-z0-9\]\)\?/ },
  { basic: "quantity.ts (quantity suffixes)", pattern: /\bKi["']?\s*:\s*1024\b/ },
  { basic: "selectors.ts (set-based selector parsing)", pattern: /\b(notin|NotIn)\b[^\n]*\bsplit\(/ },
];

const SIDES = ["sim", "relay", "functions", "durable", "cli", "cluster", "scripts", "protocol"];

function productionFiles(): string[] {
  return SIDES.flatMap((side) => globSync(`${side}/**/*.ts`, { cwd: ROOT }))
    .filter((file) => !file.endsWith(".test.ts") && !file.endsWith(".bench.ts") && !file.includes("/testing/") && !file.startsWith("protocol/kube/"));
}

test("no side keeps its own copy of a Kubernetes basic: each lives in protocol/kube/", () => {
  const copies: string[] = [];
  for (const file of productionFiles()) {
    const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
    lines.forEach((line, index) => {
      for (const { basic, pattern } of TELLTALES) if (pattern.test(line)) copies.push(`${file}:${index + 1} looks like a copy of protocol/kube/${basic}`);
    });
  }
  assert.deepEqual(copies, []);
});

test("the telltales recognise the copies they stand for", () => {
  const samples = [
    'const group = ref.apiVersion.split("/")[0];',
    "const ref = pod.metadata.ownerReferences?.find((r) => r.controller === true);",
    "const DNS = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;",
    "const SUFFIXES = { Ki: 1024, Mi: 1024 ** 2 };",
    'if (operator === "notin") values = text.slice(open + 1, close).split(",");',
  ];
  for (const [index, sample] of samples.entries()) assert.ok(TELLTALES[index]?.pattern.test(sample), `telltale ${index} finds: ${sample}`);
});
