/**
 * Upstream Sedna's GlobalManager as a peer on the real control plane, set up as its
 * manifests set it up — the CRDs of its source's `build/crds/` (every kind: the GM starts
 * an informer for each and waits for them all), its config file (`build/gm/gm-config.yaml`'s
 * fields: kubeConfig, master, namespace, websocket, localController) — and run as a process
 * of its own against the control plane's admin kubeconfig, watching one namespace.
 *
 * The binary is found in one of two ways (ADR 0029):
 * - `EDGELOOP_BENCH_GM_BINARY` names a GM built by hand from upstream's source, and
 *   `EDGELOOP_BENCH_GM_SOURCE` that source's folder (its `build/crds/`). edgeloop carries
 *   no recipe for it: the module proxy here refuses `github.com/kubeedge/sedna` itself
 *   (every other module its go.mod names is served), so whoever measures the peer builds
 *   it from a checkout of upstream's v0.7.0 with `go build ./cmd/sedna-gm`;
 * - otherwise the Go module (`cluster/versions.ts` SEDNA_GM, a wrapper go.mod, cached in a
 *   folder of its own as the control plane's binaries are), where a proxy serves it.
 * Where neither can be had, {@link gmBinary} answers why, in one line, and the bench
 * measures edgeloop alone.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { waitFor } from "../../../cli/wait.ts";
import { freePort } from "../../../cli/ports.ts";
import { BuildError, defaultCacheDir, ensureToolchain } from "../../../cluster/build.ts";
import { SEDNA_GM } from "../../../cluster/versions.ts";
import type { KubeObject } from "../../../protocol/index.ts";
import { waitForObject } from "../../support/cluster-waits.ts";
import type { TestCluster } from "../../support/http-cluster.ts";
import { stopChild } from "../util.ts";

/** The GM binary and the folder of its source (for its CRDs), or why there is none. */
export type GmBinary = { readonly binary: string; readonly source: string } | { readonly missing: string };

/** The GM named by EDGELOOP_BENCH_GM_BINARY and EDGELOOP_BENCH_GM_SOURCE, when both are set (each checked). */
export function gmFromEnvironment(env: NodeJS.ProcessEnv): GmBinary | undefined {
  const binary = env.EDGELOOP_BENCH_GM_BINARY;
  const source = env.EDGELOOP_BENCH_GM_SOURCE;
  if (!binary && !source) return undefined;
  if (!binary || !source) return { missing: "EDGELOOP_BENCH_GM_BINARY and EDGELOOP_BENCH_GM_SOURCE go together: the binary, and the source folder it was built from (its build/crds/)" };
  if (!existsSync(binary)) return { missing: `EDGELOOP_BENCH_GM_BINARY: ${binary} does not exist` };
  if (!existsSync(join(source, "build/crds"))) return { missing: `EDGELOOP_BENCH_GM_SOURCE: ${source} has no build/crds/ (the folder of upstream Sedna's source the binary was built from)` };
  return { binary, source };
}

/** The GM given by the environment, or built once from its Go module (cached); a build that cannot run says why instead of throwing. */
export async function gmBinary(progress: (line: string) => void): Promise<GmBinary> {
  const given = gmFromEnvironment(process.env);
  if (given !== undefined) return given;
  try {
    const toolchain = await ensureToolchain({ cacheDir: defaultCacheDir(process.env), env: process.env, progress }, [SEDNA_GM]);
    return { binary: toolchain.bin("sedna-gm"), source: moduleDir() };
  } catch (error) {
    if (error instanceof BuildError) return { missing: `${error.message} (or name a GM built from upstream's source: EDGELOOP_BENCH_GM_BINARY and EDGELOOP_BENCH_GM_SOURCE)` };
    throw error;
  }
}

/** The module's folder in the Go module cache (it was downloaded by the build). */
function moduleDir(): string {
  const result = spawnSync("go", ["mod", "download", "-json", `${SEDNA_GM.module}@${SEDNA_GM.version}`], { encoding: "utf8", env: process.env });
  const dir = result.status === 0 ? (JSON.parse(result.stdout) as { Dir?: string }).Dir : undefined;
  if (!dir) throw new Error(`could not download ${SEDNA_GM.module} ${SEDNA_GM.version}: ${(result.stderr || result.stdout).trim().split("\n").slice(-3).join(" | ")}`);
  return dir;
}

/** Every CustomResourceDefinition of the source's `build/crds/` (its `sedna.io_*.yaml`). */
export function upstreamCrds(dir: string): KubeObject[] {
  const folder = join(dir, "build/crds");
  return readdirSync(folder)
    .filter((file) => file.startsWith("sedna.io_") && file.endsWith(".yaml"))
    .flatMap((file) => parseAllDocuments(readFileSync(join(folder, file), "utf8")).map((doc) => doc.toJS() as KubeObject | null))
    .filter((object): object is KubeObject => object?.kind === "CustomResourceDefinition");
}

const CRD = { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" };

/** Installs (or replaces edgeloop's with) the upstream CRDs; resolves once each is Established. */
export async function installUpstreamCrds(cluster: TestCluster, crds: readonly KubeObject[]): Promise<void> {
  for (const crd of crds) {
    const name = crd.metadata.name ?? "";
    const existing = await cluster.find(CRD, undefined, name);
    if (existing === undefined) await cluster.create(crd);
    else await cluster.update({ ...crd, metadata: { ...crd.metadata, resourceVersion: existing.metadata.resourceVersion } } as KubeObject);
    const established = (o: KubeObject): boolean => ((o as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? []).some((c) => c.type === "Established" && c.status === "True");
    await waitForObject(cluster, CRD, undefined, name, established, 60_000);
  }
}

/**
 * Deletes edgeloop's webhook configurations (`install-relay`'s, labelled part-of edgeloop):
 * with the relay stopped their front is gone, and the GM's pods would still be sent to it
 * (a refused call per pod create, under failurePolicy Ignore).
 */
export async function removeEdgeloopWebhooks(cluster: TestCluster): Promise<void> {
  for (const kind of ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]) {
    const type = { apiVersion: "admissionregistration.k8s.io/v1", kind };
    for (const hook of (await cluster.list(type, { labelSelector: "app.kubernetes.io/part-of=edgeloop" })).items) await cluster.delete(type, undefined, hook.metadata.name ?? "");
  }
}

/** The GM's config file: the fields of upstream's `build/gm/gm-config.yaml`, on loopback. */
export function gmConfig(kubeconfigPath: string, namespace: string, websocketPort: number): string {
  return [`kubeConfig: ${JSON.stringify(kubeconfigPath)}`, 'master: ""', `namespace: ${namespace}`, "websocket:", "  address: 127.0.0.1", `  port: ${websocketPort}`, "localController:", "  server: http://localhost:9100", ""].join("\n");
}

/** A running GM. */
export interface RunningGm {
  readonly child: ChildProcess;
  readonly logFile: string;
  stop(): Promise<void>;
}

/** Starts the GM on `kubeconfigPath`, watching `namespace`; resolves once its LC WebSocket listens. */
export async function startGm(binary: string, kubeconfigPath: string, namespace: string): Promise<RunningGm> {
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-sedna-gm-"));
  const port = await freePort();
  const configPath = join(dir, "gm.yaml");
  writeFileSync(configPath, gmConfig(kubeconfigPath, namespace, port));
  const logFile = join(dir, "gm.log");
  const log = openSync(logFile, "a");
  const child = spawn(binary, ["--config", configPath], { stdio: ["ignore", log, log] });
  closeSync(log);
  const listening = (): Promise<boolean> =>
    new Promise((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
  await waitFor("the GM's WebSocket to listen", listening, (ok) => ok || child.exitCode !== null, { timeoutMs: 60_000, intervalMs: 100 });
  if (child.exitCode !== null) throw new Error(`the GM exited with ${child.exitCode}; its log: ${logFile}`);
  return { child, logFile, stop: () => stopChild(child) };
}
