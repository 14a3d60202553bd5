import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { BuildError, ensureToolchain, missingBinaries, moduleReplacements, stagingModules, toolchainAt, wrapperGoMod } from "./build.ts";
import { COMPONENTS, ETCD, KUBERNETES, releaseKey, SCHEDULER_PLUGINS, SEDNA_GM } from "./versions.ts";

const KUBERNETES_GO_MOD = `module k8s.io/kubernetes

go 1.26.0

require (
	k8s.io/api v0.0.0
	k8s.io/client-go v0.0.0
)

replace (
	k8s.io/api => ./staging/src/k8s.io/api
	k8s.io/client-go => ./staging/src/k8s.io/client-go
)
`;

test("the staging modules are read from k8s.io/kubernetes' own replace block", () => {
  assert.deepEqual(stagingModules(KUBERNETES_GO_MOD), ["k8s.io/api", "k8s.io/client-go"]);
  assert.deepEqual(stagingModules("module x\n"), []);
});

test("the Kubernetes wrapper module pins the release and replaces each staging module with the same release's version", () => {
  const goMod = wrapperGoMod(KUBERNETES, ["k8s.io/api", "k8s.io/client-go"]);
  assert.match(goMod, /^require k8s\.io\/kubernetes v1\.36\.3$/m);
  assert.match(goMod, /^\tk8s\.io\/api => k8s\.io\/api v0\.36\.3$/m);
  assert.match(goMod, /^\tk8s\.io\/client-go => k8s\.io\/client-go v0\.36\.3$/m);
});

test("the Kubernetes binaries are stamped with their release, as its own build does (kubectl version reads it)", () => {
  assert.equal(KUBERNETES.stamps?.["k8s.io/component-base/version.gitVersion"], "v1.36.3");
  assert.equal(KUBERNETES.stamps?.["k8s.io/client-go/pkg/version.gitMinor"], "36");
});

test("a component without staging modules gets no replace block", () => {
  const goMod = wrapperGoMod(ETCD);
  assert.match(goMod, /^require go\.etcd\.io\/etcd\/server\/v3 v3\.6\.8$/m);
  assert.doesNotMatch(goMod, /replace/);
});

test("the cache folder is named after every pin, so a new pin never reuses an old build", () => {
  assert.equal(releaseKey(), "kubernetes-v1.36.3_etcd-v3.6.8_kwok-v0.8.0_r2");
  assert.notEqual(releaseKey([{ ...KUBERNETES, version: "v1.37.2" }, ...COMPONENTS.slice(1)]), releaseKey());
});

test("without Go, the build is refused in one line naming what is missing, and nothing is built", async () => {
  const cacheDir = mkdtempSync(join(tmpdir(), "edgeloop-build-"));
  try {
    await assert.rejects(
      ensureToolchain({ cacheDir, go: "/nonexistent/go", env: { PATH: "/nonexistent" } }),
      (error: unknown) => error instanceof BuildError && /Go is required .* '\/nonexistent\/go' was not found on PATH/.test(error.message) && !error.message.includes("\n"),
    );
    assert.equal(missingBinaries(toolchainAt(cacheDir)).length, 5);
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
});

const SCHEDULER_PLUGINS_GO_MOD = `module sigs.k8s.io/scheduler-plugins

require k8s.io/kubernetes v1.34.7

replace (
	k8s.io/api => k8s.io/api v0.34.7
	k8s.io/csi-translation-lib => k8s.io/csi-translation-lib v0.34.7
	example.com/local => ../local
)

replace k8s.io/externaljwt => k8s.io/externaljwt v0.34.7
`;

test("a module's own replace directives are read from its block and its single lines, local folders left out", () => {
  assert.deepEqual(moduleReplacements(SCHEDULER_PLUGINS_GO_MOD), [
    { from: "k8s.io/api", to: "k8s.io/api", version: "v0.34.7" },
    { from: "k8s.io/csi-translation-lib", to: "k8s.io/csi-translation-lib", version: "v0.34.7" },
    { from: "k8s.io/externaljwt", to: "k8s.io/externaljwt", version: "v0.34.7" },
  ]);
});

test("the scheduler-plugins wrapper copies its replaces, with the override for the version the proxy refuses, into a cache folder of its own", () => {
  const goMod = wrapperGoMod(SCHEDULER_PLUGINS, [], moduleReplacements(SCHEDULER_PLUGINS_GO_MOD));
  assert.match(goMod, /^require sigs\.k8s\.io\/scheduler-plugins v0\.34\.7$/m);
  assert.match(goMod, /^\tk8s\.io\/api => k8s\.io\/api v0\.34\.7$/m);
  assert.match(goMod, /^\tk8s\.io\/csi-translation-lib => k8s\.io\/csi-translation-lib v0\.34\.8$/m);
  assert.match(goMod, /^\tk8s\.io\/externaljwt => k8s\.io\/externaljwt v0\.34\.7$/m);
  assert.equal(releaseKey([SCHEDULER_PLUGINS]), "scheduler-plugins-v0.34.7_r2");
});

/** The shape of Sedna v0.7's go.mod: a comment inside its replace block, and a replace on a line of its own. */
const SEDNA_GO_MOD = `module github.com/kubeedge/sedna

go 1.20

require k8s.io/kubernetes v1.23.0

replace (
	// kubernetes issue 79384
	k8s.io/api => k8s.io/api v0.23.0
	k8s.io/client-go => k8s.io/client-go v0.23.0
)

replace k8s.io/pod-security-admission => k8s.io/pod-security-admission v0.23.0
`;

test("the Sedna GlobalManager wrapper requires the release and copies its k8s.io replaces, comments left out, into a cache folder of its own", () => {
  const goMod = wrapperGoMod(SEDNA_GM, [], moduleReplacements(SEDNA_GO_MOD));
  assert.match(goMod, /^require github\.com\/kubeedge\/sedna v0\.7\.0$/m);
  assert.match(goMod, /^\tk8s\.io\/api => k8s\.io\/api v0\.23\.0$/m);
  assert.match(goMod, /^\tk8s\.io\/client-go => k8s\.io\/client-go v0\.23\.0$/m);
  assert.match(goMod, /^\tk8s\.io\/pod-security-admission => k8s\.io\/pod-security-admission v0\.23\.0$/m);
  assert.doesNotMatch(goMod, /79384/);
  assert.equal(SEDNA_GM.binaries["sedna-gm"], "github.com/kubeedge/sedna/cmd/sedna-gm");
  assert.equal(releaseKey([SEDNA_GM]), "sedna-v0.7.0_r2");
});
