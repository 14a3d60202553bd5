/**
 * The workloads measured under each controller, as upstream's samples shape them
 * (`functions/controllers/sedna/fixtures/`): FederatedLearningJobs of an aggregator on
 * `cloud` and a training worker on each of `edge1` and `edge2` (the Sedna benches' `job`),
 * and JointInferenceServices of a cloud worker on `cloud` and an edge worker on `edge1`
 * (each a Deployment of one replica, under edgeloop and upstream v0.7 alike), with the
 * Models and Datasets they name.
 */
import { waitFor } from "../../../cli/wait.ts";
import type { KubeObject } from "../../../protocol/index.ts";
import { references } from "../cluster/sedna.ts";
import type { BenchCluster } from "../cluster/stack.ts";
import { POD } from "../cluster/stack.ts";
import { inPool } from "../util.ts";
import { job } from "../sedna.bench.ts";

const SEDNA = "sedna.io/v1alpha1";

/** A JointInferenceService: its little model at the edge, its big one in the cloud. */
export function jointInference(name: string, namespace: string): KubeObject {
  const worker = (node: string, image: string): Record<string, unknown> => ({ spec: { nodeName: node, terminationGracePeriodSeconds: 0, containers: [{ name: "worker", image, env: [{ name: "input_shape", value: "416,736" }] }] } });
  return {
    apiVersion: SEDNA,
    kind: "JointInferenceService",
    metadata: { name, namespace },
    spec: {
      edgeWorker: { model: { name: "ji-little" }, hardExampleMining: { name: "IBT", parameters: [{ key: "threshold_img", value: "0.5" }] }, template: worker("edge1", "little:v1") },
      cloudWorker: { model: { name: "ji-big" }, template: worker("cloud", "big:v1") },
    },
  } as KubeObject;
}

/** How many of each. */
export interface Workload {
  readonly flJobs: number;
  readonly jiServices: number;
}

/** The pods a workload runs: three per job, two per service. */
export function podCount(w: Workload): number {
  return w.flJobs * 3 + w.jiServices * 2;
}

/** Creates the workload's objects in `namespace` (which exists), then waits until every pod of it is Running. */
export async function createWorkload(cluster: BenchCluster, namespace: string, w: Workload, timeoutMs: number): Promise<void> {
  await references(cluster, namespace);
  for (const name of ["ji-little", "ji-big"]) await cluster.create({ apiVersion: SEDNA, kind: "Model", metadata: { name, namespace }, spec: { url: `/models/${name}/model.pb`, format: "pb" } } as KubeObject);
  const objects = [...Array.from({ length: w.flJobs }, (_, i) => job(`fl-${i}`, namespace)), ...Array.from({ length: w.jiServices }, (_, i) => jointInference(`ji-${i}`, namespace))];
  await inPool(objects, 8, (object) => cluster.create(object));
  const running = async (): Promise<number> => (await cluster.list(POD, { namespace })).items.filter((pod) => !pod.metadata.deletionTimestamp && (pod as { status?: { phase?: string } }).status?.phase === "Running").length;
  await waitFor(`${podCount(w)} pods Running in ${namespace}`, running, (count) => count >= podCount(w), { timeoutMs, intervalMs: 500 });
}
