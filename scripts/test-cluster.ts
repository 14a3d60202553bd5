/**
 * `npm run test:cluster`: the end-to-end suites on a real Kubernetes control plane
 * (cluster/: kube-apiserver, its controllers, kwok kubelets), then the least-privilege
 * check of the relay's ServiceAccount against the API server's audit logs of the run.
 * A suite runs here when it starts its stack with `e2eStack` (test/e2e/harness.ts), which
 * gives each file a control plane of its own; test/cluster/ holds the suites that only
 * make sense on a real one. Needs Go (to build the control plane once) and kubectl.
 */
import { spawnSync } from "node:child_process";
import { globSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BuildError, defaultCacheDir, ensureToolchain } from "../cluster/build.ts";

const HELP = `usage: npm run test:cluster -- [--help] [FILTER...]

Runs the end-to-end suites on a real control plane (npm run cluster's: etcd,
kube-apiserver, kube-controller-manager, kube-scheduler and a kwok kubelet per node,
built once from pinned Go modules): every test/e2e suite that starts its stack with
e2eStack, the suites of test/cluster/, and last the least-privilege check (the relay's
ServiceAccount used exactly what its ClusterRole grants, read from the audit logs).
With FILTER words, only the files whose path contains one of them (the least-privilege
check runs only in a whole run, or when a FILTER names it: least-privilege).

Needs Go 1.26+ (the first run builds the binaries, several minutes, with progress) and
kubectl on PATH; either missing fails the run, naming it.

Environment: EDGELOOP_CACHE_DIR, where the binaries are cached (default
~/.cache/edgeloop); EDGELOOP_TEST_CONCURRENCY, files at once (default 1: each runs a
control plane of its own).`;

const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  console.log(HELP);
  process.exit(0);
}

function fail(message: string): never {
  console.error(`test:cluster: ${message}`);
  process.exit(1);
}

if (spawnSync("kubectl", ["version", "--client"], { stdio: "ignore" }).status !== 0) fail("kubectl is not on PATH: the suites drive the real control plane with it; install kubectl");
try {
  await ensureToolchain({ cacheDir: defaultCacheDir(process.env), env: process.env, progress: (line) => console.log(`test:cluster: ${line}`) });
} catch (error) {
  fail(error instanceof BuildError ? error.message : String(error));
}

const LAST = "test/cluster/least-privilege.test.ts";
const onBothTargets = globSync("test/e2e/*.test.ts").filter((file) => /\be2eStack\(/.test(readFileSync(file, "utf8")));
const clusterOnly = globSync("test/cluster/**/*.test.ts").filter((file) => file !== LAST);
const files = [...onBothTargets, ...clusterOnly]
  .sort()
  .filter((file) => args.length === 0 || args.some((word) => file.includes(word)));
if (files.length === 0 && !args.some((word) => LAST.includes(word))) fail("no suite matched");

const runDir = mkdtempSync(join(tmpdir(), "edgeloop-test-cluster-"));
const concurrency = process.env.EDGELOOP_TEST_CONCURRENCY ?? "1";
console.log(`test:cluster: ${files.length} suite(s) on a real control plane each, then the least-privilege check; state in ${runDir}`);
const checkLast = args.length === 0 || args.some((word) => LAST.includes(word));
const env = { ...process.env, EDGELOOP_E2E_TARGET: "cluster", EDGELOOP_CLUSTER_RUN_DIR: runDir, ...(args.length === 0 ? { EDGELOOP_CLUSTER_FULL_RUN: "1" } : {}) };
const run = (testFiles: readonly string[]): number => spawnSync(process.execPath, ["--test", `--test-concurrency=${concurrency}`, "--test-timeout=300000", ...testFiles], { stdio: "inherit", env }).status ?? 1;
const suites = files.length > 0 ? run(files) : 0;
// A run of its own, after every suite: node's runner orders the files it is given by path.
const check = checkLast ? run([LAST]) : 0;
const result = { status: suites !== 0 ? suites : check };
if (result.status === 0) rmSync(runDir, { recursive: true, force: true });
else console.error(`test:cluster: failed; the control planes' logs and audit logs are kept in ${runDir}`);
process.exit(result.status ?? 1);
