import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { gmConfig, gmFromEnvironment, upstreamCrds } from "./gm.ts";

test("the GM's config file has the fields of upstream's gm-config.yaml: the kubeconfig, one namespace, the LC WebSocket on loopback", () => {
  const config = parse(gmConfig("/tmp/a b/kubeconfig", "gm-heal", 41234)) as Record<string, unknown>;
  assert.deepEqual(config, { kubeConfig: "/tmp/a b/kubeconfig", master: "", namespace: "gm-heal", websocket: { address: "127.0.0.1", port: 41234 }, localController: { server: "http://localhost:9100" } });
});

test("the upstream CRDs are every CustomResourceDefinition of the module's build/crds/sedna.io_*.yaml, nothing else", () => {
  const dir = mkdtempSync(join(tmpdir(), "gm-crds-"));
  try {
    mkdirSync(join(dir, "build/crds"), { recursive: true });
    const crd = (plural: string): string => `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ${plural}.sedna.io\n`;
    writeFileSync(join(dir, "build/crds/sedna.io_models.yaml"), `---\n${crd("models")}`);
    writeFileSync(join(dir, "build/crds/sedna.io_datasets.yaml"), `${crd("datasets")}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n`);
    writeFileSync(join(dir, "build/crds/kustomization.yaml"), crd("other"));
    assert.deepEqual(upstreamCrds(dir).map((o) => o.metadata.name).sort(), ["datasets.sedna.io", "models.sedna.io"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a GM built by hand is named by its binary and its source folder, both or neither, each checked", () => {
  const dir = mkdtempSync(join(tmpdir(), "gm-env-"));
  try {
    const binary = join(dir, "sedna-gm");
    writeFileSync(binary, "");
    assert.equal(gmFromEnvironment({}), undefined);
    assert.match(JSON.stringify(gmFromEnvironment({ EDGELOOP_BENCH_GM_BINARY: binary })), /go together/);
    assert.match(JSON.stringify(gmFromEnvironment({ EDGELOOP_BENCH_GM_BINARY: join(dir, "nope"), EDGELOOP_BENCH_GM_SOURCE: dir })), /EDGELOOP_BENCH_GM_BINARY: .*nope does not exist/);
    assert.match(JSON.stringify(gmFromEnvironment({ EDGELOOP_BENCH_GM_BINARY: binary, EDGELOOP_BENCH_GM_SOURCE: dir })), /EDGELOOP_BENCH_GM_SOURCE: .* has no build\/crds/);
    mkdirSync(join(dir, "build/crds"), { recursive: true });
    assert.deepEqual(gmFromEnvironment({ EDGELOOP_BENCH_GM_BINARY: binary, EDGELOOP_BENCH_GM_SOURCE: dir }), { binary, source: dir });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
