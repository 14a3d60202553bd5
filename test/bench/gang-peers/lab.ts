/**
 * One peer's run of one scenario on a control plane: a namespace of its own, the group
 * objects and pods created as the peer declares them (`./peers.ts`), a watch of pods feeding
 * a {@link GangObserver}, waits on what it saw with a deadline, and everything deleted at
 * the end (the next scenario starts from empty nodes).
 */
import { waitFor, WaitTimeout } from "../../../cli/wait.ts";
import type { KubeObject } from "../../../protocol/index.ts";
import type { ClusterEvent } from "../../../sim/contract.ts";
import type { TestCluster } from "../../support/http-cluster.ts";
import { inPool } from "../util.ts";
import { GangObserver, type ObservedPod } from "./observe.ts";
import { creationOrder, groupObject, groupPod, plainPod, type GroupSpec, type PeerName } from "./peers.ts";

const POD = { apiVersion: "v1", kind: "Pod" };
/** Creates (and deletes) in flight at once. */
const CONCURRENCY = 32;
/** How long setting up and cleaning up may take. */
const CHORE_MS = 300_000;
/** How often a wait lists the pods as well as reading the watch. */
const LIST_EVERY_MS = 500;

/** A control plane as a lab uses it: the test contract, and a subscription to its pod watch. */
export interface LabCluster {
  readonly cluster: TestCluster;
  watchPods(onEvent: (event: ClusterEvent) => void): () => void;
}

/** What a peer adds to a lab: how to wait until its scheduler has seen the pods so far, and what to wait for after cleaning up. */
export interface PeerHooks {
  /** Resolves once the scheduler has seen every pod created so far (`groups` hold `present` pods each). */
  settle(lab: Lab, groups: readonly GroupSpec[], present: number): Promise<void>;
  /** Resolves once the scheduler has forgotten the deleted pods. */
  drained(): Promise<void>;
}

/** One peer's run of one scenario. */
export class Lab {
  readonly peer: PeerName;
  readonly namespace: string;
  readonly observer: GangObserver;
  readonly #on: LabCluster;
  readonly #hooks: PeerHooks;
  readonly #unsubscribe: () => void;
  readonly #declared = new Set<string>();
  /** The pods the last list showed, and when it was made (performance.now() ms). */
  #listed = new Map<string, ObservedPod>();
  #listedAt = 0;
  /** Pods a list showed bound before the watch did (a watch that fell behind or ended). */
  missedByWatch = 0;

  private constructor(peer: PeerName, namespace: string, on: LabCluster, hooks: PeerHooks) {
    this.peer = peer;
    this.namespace = namespace;
    this.#on = on;
    this.#hooks = hooks;
    this.observer = new GangObserver(namespace);
    this.#unsubscribe = on.watchPods((event) => this.observer.observe(event.object, performance.now(), event.type === "DELETED"));
  }

  /** Opens a lab in a new namespace (its `default` ServiceAccount made, so pods are admitted). */
  static async open(peer: PeerName, namespace: string, on: LabCluster, hooks: PeerHooks): Promise<Lab> {
    await on.cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } } as KubeObject);
    await waitFor(`the default ServiceAccount of ${namespace}`, () => on.cluster.find({ apiVersion: "v1", kind: "ServiceAccount" }, namespace, "default"), (sa) => sa !== undefined, { timeoutMs: 60_000, intervalMs: 100 });
    return new Lab(peer, namespace, on, hooks);
  }

  get cluster(): TestCluster {
    return this.#on.cluster;
  }

  /** Creates pods `[from, to)` of every group (each group's object first, once), group by group or interleaved. */
  async create(groups: readonly GroupSpec[], options: { interleaved?: boolean; from?: number; to?: number } = {}): Promise<void> {
    const objects = groups.filter((g) => !this.#declared.has(g.name)).flatMap((g) => groupObject(this.peer, g, this.namespace) ?? []);
    for (const g of groups) this.#declared.add(g.name);
    await inPool(objects, CONCURRENCY, (o) => this.#on.cluster.create(o));
    const order = creationOrder(groups, options.interleaved ?? false, options.from ?? 0, options.to);
    // Interleaved creates go one at a time, so the API server sees them in that order.
    await inPool(order, options.interleaved ? 1 : CONCURRENCY, ({ group, index }) => this.#on.cluster.create(groupPod(this.peer, group, index, this.namespace)));
  }

  /**
   * Waits until `done` holds of what was seen; false when `deadline` (performance.now() ms)
   * passes first. The watch gives the times; a list every {@link LIST_EVERY_MS} feeds the
   * observer too, so a watch that fell behind or ended costs precision, not a false deadlock.
   */
  async until(what: string, done: () => boolean, deadline: number): Promise<boolean> {
    const check = async (): Promise<boolean> => {
      if (done()) return true;
      if (performance.now() - this.#listedAt >= LIST_EVERY_MS) await this.refresh();
      return done();
    };
    try {
      await waitFor(what, check, (ok) => ok, { timeoutMs: Math.max(0, deadline - performance.now()), intervalMs: 10 });
      return true;
    } catch (error) {
      if (error instanceof WaitTimeout) return false;
      throw error;
    }
  }

  /** Feeds the observer with a list of the namespace's pods; a pod listed before and gone now was deleted. */
  async refresh(): Promise<void> {
    this.#listedAt = performance.now();
    const items = (await this.#on.cluster.list(POD, { namespace: this.namespace })).items as ObservedPod[];
    const now = performance.now();
    const bound = this.observer.boundPods();
    const listed = new Map(items.map((pod) => [pod.metadata.name ?? "", pod]));
    for (const pod of items) this.observer.observe(pod, now);
    for (const [name, pod] of this.#listed) if (!listed.has(name)) this.observer.observe(pod, now, true);
    this.missedByWatch += this.observer.boundPods() - bound;
    this.#listed = listed;
  }

  /** Resolves once the peer's scheduler has seen every pod so far (see {@link PeerHooks.settle}). */
  settle(groups: readonly GroupSpec[], present: number): Promise<void> {
    return this.#hooks.settle(this, groups, present);
  }

  /**
   * A pod of no group, created and waited for until bound, then deleted: the scheduler
   * took every pod queued before it (kube-scheduler's queues sort by priority, then by
   * creation time), so the pods created earlier have all been tried.
   */
  async sentinel(name: string): Promise<void> {
    const pod = plainPod(this.peer, name, this.namespace, 10);
    if (pod === undefined) throw new Error(`${this.peer} places gangs only: no sentinel pod`);
    await this.#on.cluster.create(pod);
    await waitFor(`the sentinel pod ${name} bound`, async () => (await this.#on.cluster.get(POD, this.namespace, name)) as { spec?: { nodeName?: string } }, (p) => Boolean(p.spec?.nodeName), { timeoutMs: CHORE_MS, intervalMs: 20 });
    await this.#on.cluster.delete(POD, this.namespace, name, { gracePeriodSeconds: 0 });
  }

  /**
   * Waits until the scheduler can use every node: one pod of no group per node, each
   * asking what a node has room for once, all bound, then deleted. A pod deleted while
   * waiting at Permit keeps its node assumed in kube-scheduler's cache until its wait ends
   * (coscheduling's 10 s, the native gang's 5 minutes): the next scenario starts on nodes
   * its scheduler sees free. Once they are gone, a sentinel pod (created after their
   * deletions, on the same watch the scheduler's informer reads in order) is bound: its
   * cache has dropped them too.
   */
  async probe(nodes: number, cpuMillis: number): Promise<void> {
    const names = Array.from({ length: nodes }, (_, i) => `probe-${i}`);
    const pods = names.flatMap((name) => plainPod(this.peer, name, this.namespace, cpuMillis) ?? []);
    if (pods.length === 0) return;
    await inPool(pods, CONCURRENCY, (pod) => this.#on.cluster.create(pod));
    const bound = async (): Promise<number> => ((await this.#on.cluster.list(POD, { namespace: this.namespace })).items as { metadata: { name?: string }; spec?: { nodeName?: string } }[]).filter((p) => p.metadata.name?.startsWith("probe-") && p.spec?.nodeName).length;
    await waitFor(`${nodes} probe pods bound (every node free for the scheduler)`, bound, (n) => n === nodes, { timeoutMs: CHORE_MS, intervalMs: 100 });
    await inPool(names, CONCURRENCY, (name) => this.#on.cluster.delete(POD, this.namespace, name, { gracePeriodSeconds: 0 }));
    await waitFor("the probe pods gone", async () => (await this.#on.cluster.list(POD, { namespace: this.namespace })).items.length, (n) => n === 0, { timeoutMs: CHORE_MS, intervalMs: 100 });
    await this.sentinel("probe-sentinel");
  }

  /** Deletes every pod and group object of the namespace and waits until they are gone and the scheduler has forgotten them. */
  async close(): Promise<void> {
    this.#unsubscribe();
    const pods = (await this.#on.cluster.list(POD, { namespace: this.namespace })).items;
    await inPool(pods, CONCURRENCY, (pod) => this.#on.cluster.delete(POD, this.namespace, pod.metadata.name ?? "", { gracePeriodSeconds: 0 }).catch(() => undefined));
    const type = groupObject(this.peer, { name: "x", size: 1, cpuMillis: 0 }, this.namespace);
    if (type !== undefined) {
      const objects = (await this.#on.cluster.list(type, { namespace: this.namespace })).items;
      await inPool(objects, CONCURRENCY, (o) => this.#on.cluster.delete(type, this.namespace, o.metadata.name ?? "").catch(() => undefined));
    }
    await waitFor(`no pod left in ${this.namespace}`, async () => (await this.#on.cluster.list(POD, { namespace: this.namespace })).items.length, (n) => n === 0, { timeoutMs: CHORE_MS, intervalMs: 250 });
    await this.#hooks.drained();
  }
}
