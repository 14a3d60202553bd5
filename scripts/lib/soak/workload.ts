/**
 * The soak's steady mixed churn on the local stack, every controller family at once, in
 * a round of operations repeated until the soak ends: create a Sedna
 * FederatedLearningJob, a JointInferenceService, a NerveXJob and a gang of pods, each
 * deleting the oldest of its kind beyond {@link KEEP} (so the cluster's size stays level
 * and growing memory means a leak, not more objects); delete a child pod of a live job
 * (self-heal); toggle a node's autonomy-duration annotation (the autonomy webhook and
 * controller); and prune old Events, as the API server's `--event-ttl` does.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import type { KubeObject, TypeRef } from "../../../protocol/index.ts";
import type { SimCluster } from "../../../sim/index.ts";
import { ROOT } from "../controllers.ts";

/** Live objects of each kind kept before the oldest is deleted. */
export const KEEP = 3;
/** Namespace of the churn (the Sedna fixtures' Models and Datasets live there). */
const NAMESPACE = "default";
/** Events older than this are pruned (the API server's default `--event-ttl` is an hour; a soak is shorter). */
const EVENT_TTL_MS = 60_000;
/** Pods per gang. */
const GANG_SIZE = 4;

const POD: TypeRef = { apiVersion: "v1", kind: "Pod" };
const NODE: TypeRef = { apiVersion: "v1", kind: "Node" };
const EVENT: TypeRef = { apiVersion: "v1", kind: "Event" };
const FL: TypeRef = { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob" };
const JI: TypeRef = { apiVersion: "sedna.io/v1alpha1", kind: "JointInferenceService" };
const NERVEX: TypeRef = { apiVersion: "nervex.sensetime.com/v1alpha1", kind: "NerveXJob" };
/** The node whose autonomy-duration is toggled. */
const TOGGLED_NODE = "edge1";
const DURATION = "node.openyurt.io/autonomy-duration";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- edits of nested fixture fields

/** Counts of what the churn did, by operation, and the failures. */
export interface ChurnCounts {
  readonly done: Readonly<Record<string, number>>;
  readonly failed: Readonly<Record<string, number>>;
  /** The last failure, for the progress line. */
  readonly lastError: string | undefined;
}

/** A churn: `step()` runs the next operation of the round. */
export interface Churn {
  step(): Promise<void>;
  counts(): ChurnCounts;
}

/** The first document of a fixture file of a controller family. */
function fixture(family: string, file: string): Obj {
  const [document] = parseAllDocuments(readFileSync(join(ROOT, "functions/controllers", family, "fixtures", file), "utf8"));
  return document?.toJS() as Obj;
}

/** The Models and Datasets the Sedna fixtures name; created once before the churn. */
export async function prepare(cluster: SimCluster): Promise<void> {
  const model = (name: string): KubeObject => ({ apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name, namespace: NAMESPACE }, spec: { url: `/models/${name}`, format: "pb" } }) as KubeObject;
  const dataset = (name: string, nodeName: string): KubeObject => ({ apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name, namespace: NAMESPACE }, spec: { url: "/data/train.txt", format: "txt", nodeName } }) as KubeObject;
  for (const object of [
    model("surface-defect-detection-model"),
    dataset("edge1-surface-defect-detection-dataset", "edge1"),
    dataset("edge2-surface-defect-detection-dataset", "edge2"),
    model("helmet-detection-inference-big-model"),
    model("helmet-detection-inference-little-model"),
  ]) {
    await cluster.create(object);
  }
}

/** The churn over `cluster`. */
export function churn(cluster: SimCluster): Churn {
  const templates = {
    fl: fixture("sedna", "federatedlearningjob_v1alpha1.yaml"),
    ji: fixture("sedna", "jointinferenceservice_v1alpha1.yaml"),
    nervex: fixture("nervex", "nervex-mock-nervexjob.yaml"),
  };
  const live = { fl: [] as string[], ji: [] as string[], nervex: [] as string[], gang: [] as string[] };
  const done: Record<string, number> = {};
  const failed: Record<string, number> = {};
  let lastError: string | undefined;
  let serial = 0;
  let next = 0;

  const renamed = (template: Obj, name: string): KubeObject => ({ ...structuredClone(template), metadata: { name, namespace: NAMESPACE } }) as KubeObject;

  /** Creates one, then deletes the oldest beyond KEEP. */
  async function cycle(kind: keyof typeof live, create: (name: string) => Promise<void>, remove: (name: string) => Promise<void>): Promise<void> {
    const name = `soak-${kind}-${serial++}`;
    await create(name);
    live[kind].push(name);
    while (live[kind].length > KEEP) await remove(live[kind].shift() ?? "");
  }

  const gangPod = (group: string, i: number): KubeObject =>
    ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: `${group}-${i}`, namespace: NAMESPACE, labels: { "fluxnetes.group-name": group, "fluxnetes.group-size": String(GANG_SIZE) } },
      spec: { schedulerName: "fluxnetes", terminationGracePeriodSeconds: 0, containers: [{ name: "work", image: "busybox", command: ["sleep", "3600"], resources: { requests: { cpu: "100m" } } }] },
    }) as KubeObject;

  const operations: [string, () => Promise<void>][] = [
    ["fl", () => cycle("fl", async (name) => void (await cluster.create(renamed(templates.fl, name))), async (name) => void (await cluster.delete(FL, NAMESPACE, name)))],
    ["ji", () => cycle("ji", async (name) => void (await cluster.create(renamed(templates.ji, name))), async (name) => void (await cluster.delete(JI, NAMESPACE, name)))],
    ["self-heal", async () => {
      // A child pod of a live job, deleted: its controller replaces it.
      const owned = (await cluster.list(POD, { namespace: NAMESPACE })).items.filter((pod) => (pod.metadata.ownerReferences ?? []).some((ref) => ["FederatedLearningJob", "JointInferenceService", "NerveXJob"].includes(ref.kind) || ref.kind === "ReplicaSet") && !pod.metadata.deletionTimestamp);
      const pod = owned[serial++ % Math.max(1, owned.length)];
      if (pod) await cluster.delete(POD, NAMESPACE, pod.metadata.name ?? "");
    }],
    ["nervex", () => cycle("nervex", async (name) => void (await cluster.create(renamed(templates.nervex, name))), async (name) => void (await cluster.delete(NERVEX, NAMESPACE, name)))],
    ["gang", () =>
      cycle(
        "gang",
        async (group) => {
          for (let i = 0; i < GANG_SIZE; i++) await cluster.create(gangPod(group, i));
        },
        async (group) => {
          for (let i = 0; i < GANG_SIZE; i++) await cluster.delete(POD, NAMESPACE, `${group}-${i}`).catch(() => undefined);
        },
      )],
    ["annotation", async () => {
      await cluster.patch(NODE, undefined, TOGGLED_NODE, { metadata: { annotations: { [DURATION]: serial++ % 2 === 0 ? "10m" : "20m" } } }, "merge");
    }],
    ["prune-events", async () => {
      const old = Date.now() - EVENT_TTL_MS;
      for (const event of (await cluster.list(EVENT, { namespace: NAMESPACE })).items) {
        const at = Date.parse(String((event as Obj).lastTimestamp ?? (event as Obj).eventTime ?? event.metadata.creationTimestamp ?? ""));
        if (at < old) await cluster.delete(EVENT, NAMESPACE, event.metadata.name ?? "").catch(() => undefined);
      }
    }],
  ];

  return {
    async step(): Promise<void> {
      const [name, operation] = operations[next++ % operations.length] as [string, () => Promise<void>];
      try {
        await operation();
        done[name] = (done[name] ?? 0) + 1;
      } catch (error) {
        failed[name] = (failed[name] ?? 0) + 1;
        lastError = `${name}: ${(error as Error).message}`;
      }
    },
    counts: () => ({ done: { ...done }, failed: { ...failed }, lastError }),
  };
}
