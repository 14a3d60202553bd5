/**
 * The mixed workload of the chaos suite, one of each of the four systems: Sedna
 * FederatedLearningJobs (3 worker pods each) and a JointInferenceService (2 Deployments
 * and a Service), NerveXJobs (a coordinator pod and Service each), gang-scheduled pod
 * groups (every member bound, and its `Scheduled` Event recorded), and pods on OpenYurt-autonomous edge nodes (their
 * not-ready/unreachable tolerations set to the node's autonomy-duration). A burst deletes
 * children and adds new gangs and edge pods; a look counts every expected child.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject, TypeRef } from "../../protocol/index.ts";
import type { SimCluster } from "../../sim/index.ts";
import { countSlots, type SlotCount } from "./slots.ts";
import { AUTONOMY_SECONDS, slotKeys, type SlotKind } from "./slot-keys.ts";
import { flJob } from "../support/fl-job.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reads of nested objects

export const NAMESPACE = "chaos";
/** Nodes of the sim: Sedna's (cloud, edge1, edge2, edge-node), two autonomous edge nodes, two for gangs. */
export const NODES = ["cloud", "edge1", "edge2", "edge-node", "edge-a", "edge-b", "node-1", "node-2"] as const;
const AUTONOMOUS = ["edge-a", "edge-b"] as const;
const FL_JOBS = 6;
const NERVEX_JOBS = 3;
/** The NerveXJob whose coordinator the replicas rows speak for (no burst touches it). */
export const REPLICAS_JOB = "nx-rep";
const JI_NAME = "helmet-detection-inference-example";

const POD: TypeRef = { apiVersion: "v1", kind: "Pod" };
const SERVICE: TypeRef = { apiVersion: "v1", kind: "Service" };
const NODE: TypeRef = { apiVersion: "v1", kind: "Node" };
const DEPLOYMENT: TypeRef = { apiVersion: "apps/v1", kind: "Deployment" };
const EVENT: TypeRef = { apiVersion: "v1", kind: "Event" };
/** What a look lists: every Deployment and Pod of the namespace, the JointInferenceService's Services. */
const LOOKED_AT: readonly (readonly [SlotKind, TypeRef, string | undefined])[] = [
  ["Deployment", DEPLOYMENT, undefined],
  ["Service", SERVICE, "jointinferenceservice.sedna.io/name"],
  ["Pod", POD, undefined],
  ["Event", EVENT, undefined],
];
const SEDNA_FIXTURES = join(import.meta.dirname, "../../functions/controllers/sedna/fixtures");

function fixture(file: string): Obj {
  const [document] = parseAllDocuments(readFileSync(join(SEDNA_FIXTURES, file), "utf8"));
  return document?.toJS() as Obj;
}

/** A NerveXJob of the mock images, `name` in the workload's namespace. */
export function nervexJob(name: string): KubeObject {
  const template = (role: string): Obj => ({ spec: { terminationGracePeriodSeconds: 0, containers: [{ name: "nervex-container", image: "nervex:v0.0.5", command: ["/bin/bash", "-c"], args: [`python3 -u main.py ${role}`] }] } });
  return { apiVersion: "nervex.sensetime.com/v1alpha1", kind: "NerveXJob", metadata: { name, namespace: NAMESPACE }, spec: { cleanPodPolicy: "Running", coordinator: { template: template("coordinator") }, collector: { template: template("collector") }, learner: { template: template("learner") } } } as KubeObject;
}

/** A member of pod group `group` of `size`, for the `fluxnetes` scheduler (100m cpu). */
export function gangMember(name: string, group: string, size: number): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: NAMESPACE, labels: { "fluxnetes.group-name": group, "fluxnetes.group-size": String(size) } },
    spec: { schedulerName: "fluxnetes", terminationGracePeriodSeconds: 0, containers: [{ name: "work", image: "busybox", command: ["sleep", "3600"], resources: { requests: { cpu: "100m" } } }] },
  } as KubeObject;
}

function edgePod(name: string, node: string): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: NAMESPACE, labels: { app: "edge-web" } }, spec: { nodeSelector: { "kubernetes.io/hostname": node }, terminationGracePeriodSeconds: 0, containers: [{ name: "web", image: "nginx" }] } } as KubeObject;
}

/** What the workload holds: the slots expected, growing with each burst's gangs and edge pods. */
export class Workload {
  readonly #cluster: SimCluster;
  readonly #random: () => number;
  readonly #gangs: { name: string; group: string }[] = [];
  readonly #edgePods: string[] = [];
  #flSlots: string[] = [];
  #bursts = 0;

  constructor(cluster: SimCluster, random: () => number) {
    this.#cluster = cluster;
    this.#random = random;
  }

  /** Creates the workload and waits until it has converged once; the FL slots are learned then. */
  async create(): Promise<void> {
    const cluster = this.#cluster;
    await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } } as KubeObject);
    for (const node of AUTONOMOUS) {
      await cluster.patch(NODE, undefined, node, { metadata: { labels: { "openyurt.io/is-edge-worker": "true" }, annotations: { "node.openyurt.io/autonomy-duration": `${AUTONOMY_SECONDS}s` } } }, "merge");
    }
    const sedna: Obj[] = [
      { apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "model", namespace: NAMESPACE }, spec: { url: "/m", format: "pb" } },
      ...["edge1", "edge2"].map((node) => ({ apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: `${node}-data`, namespace: NAMESPACE }, spec: { url: "/d", format: "txt", nodeName: node } })),
      ...["helmet-detection-inference-big-model", "helmet-detection-inference-little-model"].map((name) => ({ apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name, namespace: NAMESPACE }, spec: { url: `/models/${name}`, format: "pb" } })),
    ];
    for (const object of sedna) await cluster.create(object as KubeObject);
    for (let i = 0; i < FL_JOBS; i++) await cluster.create(flJob(`fl-${i}`, NAMESPACE));
    const ji = fixture("jointinferenceservice_v1alpha1.yaml");
    ji.metadata.namespace = NAMESPACE;
    await cluster.create(ji as KubeObject);
    for (let i = 0; i < NERVEX_JOBS; i++) await cluster.create(nervexJob(`nx-${i}`));
    await cluster.create(nervexJob(REPLICAS_JOB));
    await this.#addGangAndEdgePods();
    const every = { timeoutMs: 60_000, intervalMs: 250 };
    const keys = await waitFor("every FL job's 3 pods (their slots)", () => this.#flKeys(), (found) => found.length === FL_JOBS * 3, every);
    this.#flSlots = [...new Set(keys)].sort();
    await waitFor("the workload to converge (what is lost)", () => this.look(), (count) => count.lost === 0, { ...every, describe: (count) => count.examples.join(" ") });
    await waitFor(`${REPLICAS_JOB}'s coordinator to run`, () => cluster.find(POD, NAMESPACE, `${REPLICAS_JOB}-coordinator`), (pod) => (pod as Obj | undefined)?.status?.phase === "Running", every);
  }

  /** Adds a gang of `size` members named `<group>-<i>` (each expected bound); resolves once all are created. */
  async addGang(group: string, size: number): Promise<void> {
    for (let i = 0; i < size; i++) {
      const name = `${group}-${i}`;
      this.#gangs.push({ name, group });
      await this.#cluster.create(gangMember(name, group, size));
    }
  }

  /** How many members of `group` are bound now. */
  async boundMembers(group: string): Promise<number> {
    return (await this.#livePods(`fluxnetes.group-name=${group}`)).filter((pod) => pod.spec.nodeName).length;
  }

  /** Deletes the replicas API's pods and Services of {@link REPLICAS_JOB} (between rows). */
  async removeReplicas(): Promise<void> {
    const selector = `nervexjob-name=${REPLICAS_JOB},replica-type in (collector,learner)`;
    for (const type of [POD, SERVICE]) {
      for (const object of (await this.#cluster.list(type, { namespace: NAMESPACE, labelSelector: selector })).items) {
        await this.#cluster.delete(type, NAMESPACE, object.metadata.name ?? "", { gracePeriodSeconds: 0 }).catch(() => undefined);
      }
    }
  }

  /** One burst: deletes 6 FL pods, a NerveX coordinator and the JI's edge Deployment (spaced over ~1 s), adds a gang of 2 and 2 edge pods. */
  async burst(): Promise<void> {
    const cluster = this.#cluster;
    const live = await this.#livePods("federatedlearningjob.sedna.io/name");
    const victims = [...live].sort(() => this.#random() - 0.5).slice(0, 6);
    const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 100));
    for (const victim of victims) {
      await cluster.delete(POD, NAMESPACE, String(victim.metadata.name), { gracePeriodSeconds: 0 }).catch(() => undefined);
      await pause();
    }
    const nx = `nx-${Math.floor(this.#random() * NERVEX_JOBS)}`;
    await cluster.delete(POD, NAMESPACE, `${nx}-coordinator`, { gracePeriodSeconds: 0 }).catch(() => undefined);
    await pause();
    await cluster.delete(DEPLOYMENT, NAMESPACE, `${JI_NAME}-deployment-edge`).catch(() => undefined);
    await this.#addGangAndEdgePods();
  }

  async #addGangAndEdgePods(): Promise<void> {
    const n = this.#bursts++;
    const group = `gang-${n}`;
    for (let i = 0; i < 2; i++) {
      const name = `${group}-${i}`;
      this.#gangs.push({ name, group });
      await this.#cluster.create(gangMember(name, group, 2));
    }
    for (const node of AUTONOMOUS) {
      const name = `web-${n}-${node}`;
      this.#edgePods.push(name);
      await this.#cluster.create(edgePod(name, node));
    }
  }

  async #livePods(label: string): Promise<Obj[]> {
    return ((await this.#cluster.list(POD, { namespace: NAMESPACE, labelSelector: label })).items as Obj[]).filter((p) => !p.metadata.deletionTimestamp);
  }

  async #flKeys(): Promise<string[]> {
    return (await this.#livePods("federatedlearningjob.sedna.io/name")).map((p) => `fl/${String(p.metadata.labels["federatedlearningjob.sedna.io/name"])}/${String(p.metadata.labels["edgeloop.dev/worker"])}`);
  }

  /** The slots expected now. */
  expected(): string[] {
    return [
      ...this.#flSlots,
      `ji/deployment/${JI_NAME}-deployment-cloud`,
      `ji/deployment/${JI_NAME}-deployment-edge`,
      `ji/service/${JI_NAME}-cloud`,
      ...Array.from({ length: NERVEX_JOBS }, (_, i) => `nervex/coordinator/nx-${i}`),
      ...this.#gangs.map((g) => `gang/bound/${g.name}`),
      ...this.#gangs.map((g) => `gang/scheduled/${g.name}`),
      ...this.#edgePods.map((name) => `autonomy/tolerations/${name}`),
    ];
  }

  /** Counts the cluster's children against the expected slots. */
  async look(): Promise<SlotCount> {
    const cluster = this.#cluster;
    const observed: string[] = [];
    for (const [kind, type, labelSelector] of LOOKED_AT) {
      for (const object of (await cluster.list(type, { namespace: NAMESPACE, ...(labelSelector ? { labelSelector } : {}) })).items) observed.push(...slotKeys(kind, object));
    }
    // A pod bound again after a lost bind is rightly recorded again: its Scheduled Events fill one slot.
    const once = new Set(observed.filter((key) => key.startsWith("gang/scheduled/")));
    return countSlots(this.expected(), [...observed.filter((key) => !key.startsWith("gang/scheduled/")), ...once]);
  }
}
