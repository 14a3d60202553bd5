/**
 * relay/Dockerfile and .dockerignore, read as text (no docker here): a multi-stage build
 * whose image holds the bundle alone and runs it as a non-root user, exposing every port
 * the relay serves as install-relay runs it; a context without node_modules, local state,
 * secrets or tests.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createRegistry } from "../functions/registry.ts";
import { loadControllers, ROOT } from "./lib/controllers.ts";
import { installObjects } from "./lib/install/objects.ts";
import { RELAY_NODE_FLAGS } from "../relay/ops/config.ts";
import { selfSignedCertificate } from "./lib/install/tls.ts";

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(text: string): { op: string; args: string }[] {
  return text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => ({ op: (line.split(/\s+/)[0] ?? "").toUpperCase(), args: line.replace(/^\S+\s*/, "") }));
}

/** Whether a .dockerignore pattern excludes `path` (Go's filepath.Match with `**`, as Docker reads it; a directory excludes what is under it). */
function excludes(patterns: readonly string[], path: string): boolean {
  return patterns.some((pattern) => {
    // `**/` is any depth of folders; `*` and `?` stay within one path element.
    const source = pattern
      .replace(/^\//, "")
      .split("**/")
      .map((part) => part.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]"))
      .join("(?:.*/)?");
    return new RegExp(`^${source}(?:/.*)?$`).test(path);
  });
}

const dockerfile = instructions(readFileSync(join(ROOT, "relay/Dockerfile"), "utf8"));
const stages = dockerfile.reduce<{ op: string; args: string }[][]>((all, line) => (line.op === "FROM" ? [...all, [line]] : (all.at(-1)?.push(line), all)), []);

test("relay/Dockerfile: multi-stage; the image holds the bundle alone, built in an earlier stage, and runs it", () => {
  assert.ok(stages.length >= 2, "a build stage and the image");
  const [build, image] = [stages.at(-2) ?? [], stages.at(-1) ?? []];
  const buildName = /\bAS\s+(\S+)/i.exec(build[0]?.args ?? "")?.[1];
  assert.ok(buildName, "the build stage is named");
  assert.ok(build.some((l) => l.op === "RUN" && /scripts\/build-relay\.ts/.test(l.args)), "the build stage runs npm run build:relay's script");
  const copies = image.filter((l) => l.op === "COPY" || l.op === "ADD");
  assert.deepEqual(copies.map((l) => l.args), [`--from=${buildName} /src/dist/relay.mjs /app/relay.mjs`], "the image copies the bundle alone, from the build stage");
  assert.deepEqual(image.filter((l) => l.op === "ENTRYPOINT").map((l) => JSON.parse(l.args) as unknown), [["node", ...RELAY_NODE_FLAGS, "/app/relay.mjs"]], "node, RELAY_NODE_FLAGS, the bundle");
});

test("relay/Dockerfile: the image runs as a numeric non-root user", () => {
  const image = stages.at(-1) ?? [];
  const users = image.filter((l) => l.op === "USER").map((l) => l.args);
  assert.equal(users.length, 1, "one USER in the image");
  const [uid, gid] = (users[0] ?? "").split(":");
  assert.match(uid ?? "", /^\d+$/, "numeric, so that runAsNonRoot can verify it");
  assert.notEqual(Number(uid), 0);
  assert.notEqual(Number(gid ?? "1"), 0);
  assert.ok(image.findIndex((l) => l.op === "USER") < image.findIndex((l) => l.op === "ENTRYPOINT"), "USER before ENTRYPOINT");
});

test("relay/Dockerfile EXPOSEs every port of install-relay's relay container: front, API, ops and each declared edge channel", async () => {
  const manifest = createRegistry(await loadControllers()).manifest;
  const objects = installObjects({ workerUrl: "https://w.example", namespace: "edgeloop", image: "relay:test", replicas: 2, secret: "s".repeat(32), tls: await selfSignedCertificate(["relay"]), manifest, crds: [] });
  const deployment = objects.find((o) => o.kind === "Deployment") as unknown as { spec: { template: { spec: { containers: { ports: { containerPort: number }[] }[] } } } };
  const served = deployment.spec.template.spec.containers.flatMap((c) => c.ports.map((p) => p.containerPort)).sort((a, b) => a - b);
  const exposed = (stages.at(-1) ?? []).filter((l) => l.op === "EXPOSE").flatMap((l) => l.args.split(/\s+/)).map((p) => Number(p.replace(/\/tcp$/, ""))).sort((a, b) => a - b);
  assert.deepEqual(exposed, served);
  assert.ok(served.includes(9000), "sedna-gm's channel among them");
});

test(".dockerignore keeps node_modules, local state, .dev.vars and tests out of the context, and what the build needs in", () => {
  const patterns = readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"));
  assert.ok(!patterns.some((p) => p.startsWith("!")), "no exceptions to read past");
  for (const out of ["node_modules", "node_modules/undici/package.json", "functions/node_modules/x", ".edgeloop/kubeconfig", ".edgeloop/cluster/snapshot.jsonl", ".dev.vars", "functions/.dev.vars", "test/e2e/loop.test.ts", "relay/ops/metrics.test.ts", "scripts/start.test.ts", ".git/HEAD", "dist/relay.mjs"]) {
    assert.ok(excludes(patterns, out), `${out} is kept out`);
  }
  for (const needed of ["package.json", "package-lock.json", "relay/main.ts", "relay/ops/metrics.ts", "scripts/build-relay.ts", "scripts/lib/bundle.ts", "scripts/lib/controllers.ts", "cli/args.ts", "protocol/index.ts", "functions/kit/controller.ts", "tsconfig.json"]) {
    assert.ok(!excludes(patterns, needed), `${needed} is in the context`);
  }
});
