/**
 * The coscheduling peer: kube-scheduler with the Coscheduling plugin of
 * `sigs.k8s.io/scheduler-plugins` v0.34.7, built from its module (`cluster/versions.ts`
 * SCHEDULER_PLUGINS, cached in a folder of its own) and run in place of the release's
 * kube-scheduler on a control plane of the same nodes. Set up as its manifests set it up:
 * the PodGroup CRD of the module (`manifests/coscheduling/crd.yaml`), the
 * KubeSchedulerConfiguration of `manifests/coscheduling/scheduler-config.yaml`
 * (Coscheduling at every extension point, its queue sort alone, permitWaitingTimeSeconds
 * 10) under the profile name of its as-a-second-scheduler chart, and the chart's rule on
 * `scheduling.x-k8s.io` granted to the identity the scheduler runs as (the control plane's
 * `system:kube-scheduler`, whose built-in role covers the rest).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { defaultCacheDir, ensureToolchain } from "../../../cluster/build.ts";
import { startControlPlane, type RunningControlPlane } from "../../../cluster/index.ts";
import { SCHEDULER_PLUGINS } from "../../../cluster/versions.ts";
import type { KubeObject } from "../../../protocol/index.ts";
import { waitForObject } from "../../support/cluster-waits.ts";
import type { TestCluster } from "../../support/http-cluster.ts";

/** The profile's scheduler name (the as-a-second-scheduler chart's `scheduler.name`). */
export const COSCHEDULING_SCHEDULER = "scheduler-plugins-scheduler";
/** How long pods of an incomplete group wait at Permit (the module's manifests set 10; its default is 60). */
export const PERMIT_WAITING_SECONDS = 10;

/** The KubeSchedulerConfiguration: the module's coscheduling manifest, under the chart's profile name. */
export function schedulerConfig(kubeconfigPath: string): string {
  return `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
clientConnection:
  kubeconfig: ${JSON.stringify(kubeconfigPath)}
profiles:
- schedulerName: ${COSCHEDULING_SCHEDULER}
  plugins:
    multiPoint:
      enabled:
      - name: Coscheduling
    queueSort:
      enabled:
      - name: Coscheduling
      disabled:
      - name: "*"
  pluginConfig:
  - name: Coscheduling
    args:
      permitWaitingTimeSeconds: ${PERMIT_WAITING_SECONDS}
`;
}

/** The chart's `scheduling.x-k8s.io` rule, bound to the user the control plane's scheduler kubeconfig names. */
export function rbacObjects(): KubeObject[] {
  const name = "edgeloop-bench:scheduler-plugins";
  return [
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name }, rules: [{ apiGroups: ["scheduling.x-k8s.io"], resources: ["podgroups", "elasticquotas", "podgroups/status", "elasticquotas/status"], verbs: ["get", "list", "watch", "create", "delete", "update", "patch"] }] } as unknown as KubeObject,
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", metadata: { name }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name }, subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "system:kube-scheduler" }] } as unknown as KubeObject,
  ];
}

/** The module's folder in the Go module cache (downloaded through the proxy when missing). */
function moduleDir(): string {
  const result = spawnSync("go", ["mod", "download", "-json", `${SCHEDULER_PLUGINS.module}@${SCHEDULER_PLUGINS.version}`], { encoding: "utf8", env: process.env });
  const dir = result.status === 0 ? (JSON.parse(result.stdout) as { Dir?: string }).Dir : undefined;
  if (!dir) throw new Error(`could not download ${SCHEDULER_PLUGINS.module} ${SCHEDULER_PLUGINS.version}: ${(result.stderr || result.stdout).trim().split("\n").slice(-3).join(" | ")}`);
  return dir;
}

/** The PodGroup CRD as the module ships it. */
export function podGroupCrd(): KubeObject {
  const text = readFileSync(join(moduleDir(), "manifests/coscheduling/crd.yaml"), "utf8");
  const crd = parseAllDocuments(text).map((doc) => doc.toJS() as KubeObject | null).find((o) => o?.kind === "CustomResourceDefinition");
  if (!crd) throw new Error(`${SCHEDULER_PLUGINS.module} ${SCHEDULER_PLUGINS.version}: no CustomResourceDefinition in manifests/coscheduling/crd.yaml`);
  return crd;
}

/** The scheduler binary, built once (a one-line error when it cannot be). */
export async function coschedulingBinary(progress: (line: string) => void): Promise<string> {
  const toolchain = await ensureToolchain({ cacheDir: defaultCacheDir(process.env), env: process.env, progress }, [SCHEDULER_PLUGINS]);
  return toolchain.bin("kube-scheduler");
}

/**
 * Starts a control plane whose scheduler is scheduler-plugins', with the CRD and RBAC
 * installed; `stateDir` holds its state (the scheduler's config file too).
 */
export async function startCoschedulingPlane(stateDir: string, nodes: readonly string[], binary: string, progress: (line: string) => void): Promise<RunningControlPlane> {
  // The scheduler reads its kubeconfig from the config file (its --kubeconfig flag is ignored with --config): the one the control plane writes for kube-scheduler.
  const configPath = join(stateDir, "scheduler-plugins-config.yaml");
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  writeFileSync(configPath, schedulerConfig(join(stateDir, "components", "kube-scheduler.kubeconfig")));
  return startControlPlane({ stateDir, port: 0, nodes, fresh: true, cacheDir: defaultCacheDir(process.env), env: process.env, progress, scheduler: { binary, extraArgs: ["--config", configPath] } });
}

/** Installs the CRD and the RBAC; resolves once the CRD is Established (PodGroups served). */
export async function installCoscheduling(cluster: TestCluster): Promise<void> {
  const crd = podGroupCrd();
  for (const object of [crd, ...rbacObjects()]) await cluster.create(object);
  const established = (o: KubeObject): boolean => ((o as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? []).some((c) => c.type === "Established" && c.status === "True");
  await waitForObject(cluster, { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" }, undefined, crd.metadata.name ?? "", established, 60_000);
}
