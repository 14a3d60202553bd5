/**
 * A stack on a real control plane for a cluster figure: the control plane and edgeloop
 * installed in it as `npm run test:cluster` starts them (`e2eStack` on the cluster
 * target: `startControlPlane`, kwok nodes, `startOnCluster` with the admission front),
 * then, as on the sim's benches, the relay moved to a process of its own (the bundle the
 * image runs; `../util.ts` `relayProcess`) on the same Worker, API port, front and
 * credentials (the relay's ServiceAccount where the stack installed it). A pod
 * watch is open from the start for the code written against the sim's in-process watch.
 */
import { KubeConfig } from "@kubernetes/client-node";
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import type { KubeObject, TypeRef } from "../../../protocol/index.ts";
import type { StackOptions } from "../../../scripts/lib/stack.ts";
import type { ClusterEvent } from "../../../sim/contract.ts";
import { e2eStack, TARGET, type E2EStack } from "../../e2e/harness.ts";
import { readerToken } from "../../e2e/readers.ts";
import { waitForObject } from "../../support/cluster-waits.ts";
import type { TestCluster } from "../../support/http-cluster.ts";
import { relayIdle, relayProcess, stopChild } from "../util.ts";
import { openWatch, type WatchStream } from "./watch.ts";

export const POD: TypeRef = { apiVersion: "v1", kind: "Pod" };
export const NODE: TypeRef = { apiVersion: "v1", kind: "Node" };

/** How long a wait of the cluster bench may take before it gives up. */
export const WAIT_MS = 600_000;

/** The relay's process (`../util.ts`). */
export type Relay = Awaited<ReturnType<typeof relayProcess>>;

/** The cluster as the sim's bench code reads and writes it: the test contract, and a watch of Pods. */
export type BenchCluster = TestCluster & { watch(type: TypeRef | null, onEvent: (event: ClusterEvent) => void): () => void };

/** A running stack of the cluster bench. */
export interface ClusterBench {
  readonly stack: E2EStack;
  readonly cluster: BenchCluster;
  readonly relay: Relay;
  /** The kubeconfig the relay process runs with. */
  readonly relayKubeconfigPath: string;
  /** A bearer token that may list pods everywhere: the relay's read APIs (`GET /v1/gangs`) review their caller (ADR 0010). */
  readonly readerToken: string;
  stop(): Promise<void>;
}

/** A watch that subscribes to `pods`, and throws for any other kind (the bench opens only the Pod watch). */
function podWatch(pods: WatchStream): BenchCluster["watch"] {
  return (type, onEvent) => {
    if (type?.kind !== "Pod" || type.apiVersion !== "v1") throw new Error(`the cluster bench watches Pods only, not ${type?.kind ?? "every kind"}`);
    return pods.subscribe(onEvent);
  };
}

/**
 * The kubeconfig the stack's relay ran with: its ServiceAccount's where `startOnCluster`
 * installed edgeloop as installed (`installed.relayKubeconfigPath`), else the admin one.
 */
function relayKubeconfig(stack: E2EStack): string {
  const installed = (stack as { readonly installed?: { readonly relayKubeconfigPath?: string } }).installed;
  return installed?.relayKubeconfigPath ?? stack.kubeconfigPath;
}

/**
 * Starts a control plane with `nodes` (kwok kubelets), edgeloop installed in it, the relay
 * as a process of its own running `script`; resolves once that relay is idle.
 */
export async function clusterBench(nodes: readonly string[], script: string, progress: (message: string) => void, options: Partial<StackOptions> = {}): Promise<ClusterBench> {
  if (TARGET !== "cluster") throw new Error("the end-to-end harness was loaded before ./on-cluster.ts selected the cluster target");
  progress(`starting a control plane with ${nodes.length} kwok node(s) and edgeloop installed in it`);
  const started = performance.now();
  const stack = await e2eStack({ nodes, admissionFront: true, ...options });
  let pods: WatchStream | undefined;
  let relay: Relay | undefined;
  try {
    const kc = new KubeConfig();
    kc.loadFromFile(stack.kubeconfigPath);
    pods = await openWatch(kc, POD);
    await stack.relay.stop();
    const relayKubeconfigPath = relayKubeconfig(stack);
    relay = await relayProcess({ ...stack, sim: { kubeconfigPath: relayKubeconfigPath } }, script);
    await relayIdle(relay.metrics, WAIT_MS);
    progress(`ready after ${Math.round((performance.now() - started) / 100) / 10} s (kube-apiserver ${stack.controlPlane?.version ?? "?"}; the relay process as ${relayKubeconfigPath === stack.kubeconfigPath ? "admin" : "its ServiceAccount"})`);
    const token = await readerToken(stack, "bench-reader");
    const watch = podWatch(pods);
    const cluster: BenchCluster = Object.assign(stack.cluster, { watch });
    const [openPods, openRelay] = [pods, relay];
    return {
      stack,
      cluster,
      relay,
      relayKubeconfigPath,
      readerToken: token,
      async stop(): Promise<void> {
        openPods.close();
        await stopChild(openRelay.child);
        if (!process.env.EDGELOOP_BENCH_RELAY_LOG) rmSync(dirname(openRelay.logFile), { recursive: true, force: true });
        await stack.stop();
      },
    };
  } catch (error) {
    pods?.close();
    if (relay) await stopChild(relay.child);
    await stack.stop();
    throw error;
  }
}

/** Creates a namespace. */
export async function createNamespace(cluster: TestCluster, name: string): Promise<void> {
  await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } } as KubeObject);
  // Until its controller makes the default ServiceAccount, the ServiceAccount admission plugin refuses pods there.
  await waitForObject(cluster, { apiVersion: "v1", kind: "ServiceAccount" }, name, "default", () => true, 30_000);
}
