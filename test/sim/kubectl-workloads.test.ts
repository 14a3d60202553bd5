/**
 * Workload controllers through the real kubectl against the sim: Deployment revisions
 * (`kubectl rollout history` and `rollout undo`, which patches the Deployment's template to
 * an old ReplicaSet's), DaemonSets (a pod per matching node) and StatefulSets (ordered,
 * stable names), each followed with `kubectl rollout status` and rolled back with
 * `kubectl rollout undo` (ControllerRevisions); ReplicationControllers.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { stringify } from "yaml";
import { waitFor } from "../../cli/wait.ts";
import type { RunningSim } from "../../sim/index.ts";
import { upstreamLocalControllerDaemonSet } from "../support/local-controller-manifest.ts";
import { KUBECTL_SKIP, simWithKubectl, type Kubectl, type SimWithKubectl } from "./kubectl.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested status

const skip = KUBECTL_SKIP;
let stack: SimWithKubectl;
let sim: RunningSim;
let kubectl: Kubectl;

before(async () => {
  stack = await simWithKubectl("workloads", { nodes: 3 });
  ({ sim, kubectl } = stack);
});

after(async () => {
  await stack.stop();
});

const json = async (args: readonly string[]): Promise<Obj> => JSON.parse(await kubectl([...args, "-o", "json"])) as Obj;
/** REVISION numbers `kubectl rollout history` lists. */
const revisions = async (target: string, namespace: string): Promise<string[]> =>
  (await kubectl(["rollout", "history", target, "-n", namespace])).split("\n").filter((line) => /^\d+\s/.test(line)).map((line) => line.split(/\s+/)[0] ?? "");

test("kubectl rollout history and undo: revisions on Deployments and ReplicaSets, an old ReplicaSet brought back with the next revision", { skip }, async () => {
  const ns = "revisions";
  await kubectl(["create", "namespace", ns]);
  await kubectl(["create", "deployment", "web", "--image=nginx:1", "--replicas=2", "-n", ns]);
  await kubectl(["rollout", "status", "deploy/web", "-n", ns, "--timeout=30s"]);
  await kubectl(["annotate", "deploy/web", "-n", ns, "kubernetes.io/change-cause=to nginx 2"]);
  await kubectl(["set", "image", "deploy/web", "nginx=nginx:2", "-n", ns]);
  await kubectl(["rollout", "status", "deploy/web", "-n", ns, "--timeout=30s"]);
  assert.deepEqual(await revisions("deploy/web", ns), ["1", "2"]);
  assert.match(await kubectl(["rollout", "history", "deploy/web", "-n", ns]), /2\s+to nginx 2/);

  assert.match(await kubectl(["rollout", "undo", "deploy/web", "-n", ns]), /rolled back/);
  await kubectl(["rollout", "status", "deploy/web", "-n", ns, "--timeout=30s"]);
  // Upstream's history after an undo: the first revision became the third.
  assert.deepEqual(await revisions("deploy/web", ns), ["2", "3"]);
  const sets = (await json(["get", "rs", "-n", ns])).items as Obj[];
  assert.equal(sets.length, 2, "the undo reused the first ReplicaSet");
  const back = sets.find((rs) => rs.spec.template.spec.containers[0].image === "nginx:1") as Obj;
  assert.equal(back.metadata.annotations["deployment.kubernetes.io/revision"], "3");
  assert.equal(back.metadata.annotations["deployment.kubernetes.io/revision-history"], "1");
  assert.equal(back.spec.replicas, 2);
  const deployment = await json(["get", "deploy/web", "-n", ns]);
  assert.equal(deployment.metadata.annotations["deployment.kubernetes.io/revision"], "3");

  await kubectl(["rollout", "undo", "deploy/web", "-n", ns, "--to-revision=2"]);
  await kubectl(["rollout", "status", "deploy/web", "-n", ns, "--timeout=30s"]);
  assert.deepEqual(await revisions("deploy/web", ns), ["3", "4"]);
  assert.match(await kubectl(["rollout", "history", "deploy/web", "-n", ns, "--revision=4"]), /Image:\s+nginx:2/);
  await kubectl(["delete", "namespace", ns, "--wait=false"]);
});

/** The node each pod of `selector` is on, sorted. */
const podNodes = async (namespace: string, selector: string): Promise<string[]> =>
  ((await json(["get", "pods", "-n", namespace, "-l", selector])).items as Obj[]).filter((p) => !p.metadata.deletionTimestamp).map((p) => String(p.spec.nodeName ?? "")).sort();

test("DaemonSets: a pod per matching node (nodeSelector, taints and tolerations), the daemon tolerations, a rolling update, kubectl rollout status", { skip }, async () => {
  const ns = "daemons";
  await kubectl(["create", "namespace", ns]);
  await kubectl(["taint", "node", "sim-node-3", "dedicated=edge:NoSchedule"]);
  const manifest = { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "agent", namespace: ns }, spec: { selector: { matchLabels: { app: "agent" } }, template: { metadata: { labels: { app: "agent" } }, spec: { containers: [{ name: "a", image: "busybox:1" }] } } } };
  await kubectl(["apply", "-f", "-"], stringify(manifest));
  await kubectl(["rollout", "status", "ds/agent", "-n", ns, "--timeout=30s"]);
  // The tainted node is left out.
  assert.deepEqual(await podNodes(ns, "app=agent"), ["sim-node-1", "sim-node-2"]);
  const ds = await json(["get", "ds/agent", "-n", ns]);
  assert.deepEqual(ds.spec.updateStrategy, { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
  assert.deepEqual(ds.status, { currentNumberScheduled: 2, desiredNumberScheduled: 2, numberAvailable: 2, numberMisscheduled: 0, numberReady: 2, observedGeneration: 1, updatedNumberScheduled: 2 });
  const pod = ((await json(["get", "pods", "-n", ns, "-l", "app=agent"])).items as Obj[])[0] as Obj;
  assert.deepEqual(pod.spec.tolerations.map((t: Obj) => `${String(t.key)}:${String(t.effect)}`), ["node.kubernetes.io/not-ready:NoExecute", "node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/disk-pressure:NoSchedule", "node.kubernetes.io/memory-pressure:NoSchedule", "node.kubernetes.io/pid-pressure:NoSchedule", "node.kubernetes.io/unschedulable:NoSchedule"]);
  assert.deepEqual(pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, [{ matchFields: [{ key: "metadata.name", operator: "In", values: [pod.spec.nodeName] }] }]);
  assert.equal(pod.metadata.ownerReferences[0].kind, "DaemonSet");
  assert.equal(ds.metadata.annotations["deprecated.daemonset.template.generation"], "1");
  assert.equal(pod.metadata.labels["pod-template-generation"], "1");

  // Tolerating the taint and selecting labelled nodes, with a new image: rolled node by node.
  await kubectl(["label", "node", "sim-node-2", "sim-node-3", "edge=yes"]);
  await kubectl(["patch", "ds/agent", "-n", ns, "--type=merge", "-p", JSON.stringify({ spec: { template: { spec: { nodeSelector: { edge: "yes" }, tolerations: [{ key: "dedicated", operator: "Exists" }], containers: [{ name: "a", image: "busybox:2" }] } } } })]);
  await kubectl(["rollout", "status", "ds/agent", "-n", ns, "--timeout=30s"]);
  await waitFor("the pods on the labelled nodes only", () => podNodes(ns, "app=agent"), (nodes) => nodes.join() === "sim-node-2,sim-node-3");
  const images = ((await json(["get", "pods", "-n", ns, "-l", "app=agent"])).items as Obj[]).map((p) => p.spec.containers[0].image as string);
  assert.deepEqual([...new Set(images)], ["busybox:2"]);
  assert.equal((await json(["get", "ds/agent", "-n", ns])).metadata.annotations["deprecated.daemonset.template.generation"], "2");
  // ControllerRevisions: kubectl rollout history lists them, rollout undo patches the template back
  // (the first template again: every node, now the taint is gone; a pod on a node whose NoSchedule
  // taint it does not tolerate would stay, as upstream).
  await kubectl(["taint", "node", "sim-node-3", "dedicated-"]);
  assert.deepEqual(await revisions("ds/agent", ns), ["1", "2"]);
  assert.match(await kubectl(["rollout", "undo", "ds/agent", "-n", ns]), /rolled back/);
  await kubectl(["rollout", "status", "ds/agent", "-n", ns, "--timeout=30s"]);
  assert.deepEqual(await revisions("ds/agent", ns), ["2", "3"]);
  await waitFor("busybox:1 back on every node", () => json(["get", "pods", "-n", ns, "-l", "app=agent"]), (list) => (list.items as Obj[]).every((p) => p.spec.containers[0].image === "busybox:1" && !p.metadata.deletionTimestamp) && list.items.length === 3);
  await kubectl(["label", "node", "sim-node-2", "sim-node-3", "edge-"]);
  await kubectl(["delete", "namespace", ns, "--wait=false"]);
});

test("the upstream Sedna LocalController DaemonSet applies as it is and runs on every node (hostNetwork adds the network-unavailable toleration)", { skip }, async () => {
  await kubectl(["create", "namespace", "sedna"]);
  await kubectl(["apply", "-f", "-"], stringify(upstreamLocalControllerDaemonSet()));
  await kubectl(["rollout", "status", "ds/lc", "-n", "sedna", "--timeout=30s"]);
  assert.deepEqual(await podNodes("sedna", "sedna=lc"), ["sim-node-1", "sim-node-2", "sim-node-3"]);
  const pod = ((await json(["get", "pods", "-n", "sedna", "-l", "sedna=lc"])).items as Obj[])[0] as Obj;
  assert.ok(pod.spec.tolerations.some((t: Obj) => t.key === "node.kubernetes.io/network-unavailable" && t.effect === "NoSchedule"));
  await kubectl(["delete", "namespace", "sedna", "--wait=false"]);
});

/** The sim's pod events (`TYPE name ready`) in `namespace` while `during` runs, watched in-process (a committed change is seen at once). */
async function watchPods(namespace: string, during: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const stop = sim.cluster.watch({ apiVersion: "v1", kind: "Pod" }, (event) => {
    if (event.object.metadata.namespace !== namespace) return;
    const ready = ((event.object as Obj).status?.conditions as Obj[] | undefined)?.find((c) => c.type === "Ready")?.status ?? "";
    seen.push(`${event.type} ${String(event.object.metadata.name)} ${String(ready)}`.trim());
  });
  try {
    await during();
    return seen;
  } finally {
    stop();
  }
}

const statefulSet = (name: string, namespace: string, spec: Obj = {}): string =>
  stringify({ apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name, namespace }, spec: { replicas: 3, serviceName: name, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: "a", image: "busybox:1" }] } }, ...spec } });

test("StatefulSets: stable names created in order (OrderedReady waits for each pod Ready), Parallel, scale down from the highest ordinal, a rolling update, kubectl rollout status", { skip }, async () => {
  const ns = "stateful";
  await kubectl(["create", "namespace", ns]);
  const seen = await watchPods(ns, async () => {
    await kubectl(["apply", "-f", "-"], statefulSet("db", ns));
    assert.match(await kubectl(["rollout", "status", "sts/db", "-n", ns, "--timeout=30s"]), /partitioned roll out complete: 3 new pods have been updated/);
  });
  // Each pod appears only after the one before it is Ready.
  const added = seen.flatMap((line, at) => (line.startsWith("ADDED") ? [[line.split(" ")[1], at] as const] : []));
  assert.deepEqual(added.map(([name]) => name), ["db-0", "db-1", "db-2"]);
  for (const [index, [, at]] of added.entries()) {
    if (index === 0) continue;
    const before = `db-${index - 1}`;
    assert.ok(seen.slice(0, at).some((line) => line === `MODIFIED ${before} True`), `${before} was Ready before db-${index} was made`);
  }
  const set = await json(["get", "sts/db", "-n", ns]);
  assert.equal(set.spec.podManagementPolicy, "OrderedReady");
  assert.deepEqual(set.spec.updateStrategy, { type: "RollingUpdate", rollingUpdate: { partition: 0 } });
  assert.equal(set.status.readyReplicas, 3);
  assert.equal(set.status.currentRevision, set.status.updateRevision);
  const pod = await json(["get", "pod/db-1", "-n", ns]);
  assert.equal(pod.spec.hostname, "db-1");
  assert.equal(pod.spec.subdomain, "db");

  await kubectl(["set", "image", "sts/db", "a=busybox:2", "-n", ns]);
  await kubectl(["rollout", "status", "sts/db", "-n", ns, "--timeout=30s"]);
  const images = ((await json(["get", "pods", "-n", ns, "-l", "app=db"])).items as Obj[]).map((p) => `${String(p.metadata.name)}=${String(p.spec.containers[0].image)}`).sort();
  assert.deepEqual(images, ["db-0=busybox:2", "db-1=busybox:2", "db-2=busybox:2"]);

  assert.deepEqual(await revisions("sts/db", ns), ["1", "2"]);
  await kubectl(["rollout", "undo", "sts/db", "-n", ns]);
  await kubectl(["rollout", "status", "sts/db", "-n", ns, "--timeout=30s"]);
  assert.deepEqual(await revisions("sts/db", ns), ["2", "3"]);
  await waitFor("busybox:1 back in every pod", () => json(["get", "pods", "-n", ns, "-l", "app=db"]), (list) => (list.items as Obj[]).every((p) => p.spec.containers[0].image === "busybox:1"));
  await kubectl(["scale", "sts/db", "--replicas=1", "-n", ns]);
  await waitFor("db scaled to one", () => podNodes(ns, "app=db"), (nodes) => nodes.length === 1);
  assert.deepEqual(((await json(["get", "pods", "-n", ns, "-l", "app=db"])).items as Obj[]).map((p) => p.metadata.name), ["db-0"]);

  await kubectl(["apply", "-f", "-"], statefulSet("fast", ns, { podManagementPolicy: "Parallel", replicas: 4 }));
  await kubectl(["rollout", "status", "sts/fast", "-n", ns, "--timeout=30s"]);
  assert.match(await kubectl(["get", "sts/fast", "-n", ns]), /fast\s+4\/4/);
  await kubectl(["delete", "namespace", ns, "--wait=false"]);
});

test("ReplicationControllers: selector and labels defaulted from the template, replicas kept, scaled with kubectl scale, kubectl get columns", { skip }, async () => {
  const ns = "legacy";
  await kubectl(["create", "namespace", ns]);
  const rc = { apiVersion: "v1", kind: "ReplicationController", metadata: { name: "old", namespace: ns }, spec: { replicas: 2, template: { metadata: { labels: { app: "old" } }, spec: { containers: [{ name: "a", image: "busybox:1" }] } } } };
  await kubectl(["create", "-f", "-"], stringify(rc));
  const created = await json(["get", "rc/old", "-n", ns]);
  assert.deepEqual(created.spec.selector, { app: "old" });
  assert.deepEqual(created.metadata.labels, { app: "old" });
  await waitFor("two ready replicas", () => json(["get", "rc/old", "-n", ns]), (o) => o.status?.readyReplicas === 2);
  await kubectl(["scale", "rc/old", "--replicas=3", "-n", ns]);
  const scaled = await waitFor("three ready replicas", () => json(["get", "rc/old", "-n", ns]), (o) => o.status?.readyReplicas === 3);
  assert.deepEqual(scaled.status, { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 2 });
  assert.match(await kubectl(["get", "rc", "-n", ns]), /NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\nold\s+3\s+3\s+3\s/);
  await kubectl(["delete", "namespace", ns, "--wait=false"]);
});
