/**
 * Fidelity: PriorityClasses and the Priority admission plugin through the real kubectl
 * (`get pc`, `apply -f`, `create priorityclass`, which sends protobuf), nodes with GPUs
 * (`nodeGpus`) and the scheduler's extended-resource fit, and a second binding of a bound
 * pod over HTTP (409, worded as kube-apiserver words it).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import { startSim, type RunningSim } from "../../sim/index.ts";
import { KUBECTL_SKIP, kubectlFor, type Kubectl } from "./kubectl.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const skip = KUBECTL_SKIP;
const POD = { apiVersion: "v1", kind: "Pod" };

let sim: RunningSim;
let dir: string;
let kubectl: Kubectl;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "edgeloop-kubectl-priority-"));
  sim = await startSim({ port: 0, kubeconfigPath: join(dir, "kubeconfig"), nodes: 1, nodeGpus: 2 });
  kubectl = kubectlFor(join(dir, "kubeconfig"));
  await waitFor("the node (nodes listed)", async () => (await sim.cluster.list({ apiVersion: "v1", kind: "Node" })).items.length, (nodes) => nodes === 1);
});

after(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

const podYaml = (name: string, extra: string): string => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
${extra}
  containers:
  - name: c
    image: busybox
    command: ["sleep", "3600"]
`;

test("kubectl get pc lists the system classes; apply -f and create priorityclass add classes", { skip }, async () => {
  const table = await kubectl(["get", "pc"]);
  assert.match(table, /^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY\n/);
  assert.match(table, /system-cluster-critical\s+2000000000\s+false\s+\S+\s+PreemptLowerPriority/);
  assert.match(table, /system-node-critical\s+2000001000\s+false/);

  const applied = await kubectl(["apply", "-f", "-"], "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: high\nvalue: 100000\ndescription: edge inference first\n");
  assert.match(applied, /priorityclass.scheduling.k8s.io\/high created/);
  assert.match(await kubectl(["create", "priorityclass", "batch", "--value=10", "--description=background work", "--preemption-policy=Never"]), /priorityclass.scheduling.k8s.io\/batch created/);
  const batch = JSON.parse(await kubectl(["get", "priorityclass", "batch", "-o", "json"])) as Obj;
  assert.equal(batch.value, 10);
  assert.equal(batch.preemptionPolicy, "Never");
  assert.equal(batch.description, "background work");

  await assert.rejects(kubectl(["create", "priorityclass", "too-high", "--value=1000000001"]), /value: Forbidden: maximum allowed value of a user defined priority is 1000000000/);
  await assert.rejects(kubectl(["delete", "pc", "system-node-critical"]), /this is a system priority class and cannot be deleted/);
});

test("a pod naming a class gets its priority; an unknown class is refused (403)", { skip }, async () => {
  await kubectl(["apply", "-f", "-"], podYaml("urgent", "  priorityClassName: high"));
  assert.equal(await kubectl(["get", "pod", "urgent", "-o", "jsonpath={.spec.priority} {.spec.preemptionPolicy}"]), "100000 PreemptLowerPriority");
  await kubectl(["apply", "-f", "-"], podYaml("urgent", "  priorityClassName: high"));
  assert.equal(await kubectl(["get", "pod", "urgent", "-o", "jsonpath={.spec.priority}"]), "100000", "a second apply keeps it");
  await assert.rejects(kubectl(["apply", "-f", "-"], podYaml("lost", "  priorityClassName: foo")), /pods "lost" is forbidden: no PriorityClass with name foo was found/);
  await assert.rejects(
    kubectl(["apply", "-f", "-"], podYaml("pushy", "  priorityClassName: high\n  priority: 5")),
    /the integer value of priority \(5\) must not be provided in pod spec; priority admission controller computed 100000 from the given PriorityClass name/,
  );
});

test("--node-gpus: pods requesting GPUs fit while the node has them, then FailedScheduling names the GPU", { skip }, async () => {
  const node = JSON.parse(await kubectl(["get", "node", "sim-node-1", "-o", "json"])) as Obj;
  assert.equal(node.status.allocatable["nvidia.com/gpu"], "2");
  assert.equal(node.status.capacity["nvidia.com/gpu"], "2");
  const gpus = (n: number): string => `  containers:\n  - name: c\n    image: busybox\n    command: ["sleep", "3600"]\n    resources:\n      limits:\n        nvidia.com/gpu: "${n}"\n`;
  const manifest = (name: string, n: number): string => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n${gpus(n)}`;
  await kubectl(["apply", "-f", "-"], manifest("trainer", 2));
  await waitFor("trainer bound (its node)", async () => ((await sim.cluster.get(POD, "default", "trainer")) as Obj).spec.nodeName, Boolean);
  await kubectl(["apply", "-f", "-"], manifest("second", 1));
  const scheduled = await waitFor(
    "FailedScheduling (second's PodScheduled condition)",
    async () => (((await sim.cluster.get(POD, "default", "second")) as Obj).status.conditions ?? []).find((c: Obj) => c.type === "PodScheduled") as Obj | undefined,
    (condition) => condition?.status === "False",
  );
  const message = String(scheduled?.message);
  assert.equal(message, "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.");
  await kubectl(["delete", "pod", "trainer", "--grace-period=0", "--force"]);
  await waitFor("second bound once the GPUs are free (its node)", async () => ((await sim.cluster.get(POD, "default", "second")) as Obj).spec.nodeName, Boolean, { timeoutMs: 20_000 });
});

test("binding a bound pod over HTTP: 409 Conflict, pod x is already assigned to node", { skip }, async () => {
  await sim.cluster.create({ apiVersion: "v1", kind: "Pod", metadata: { name: "placed", namespace: "default" }, spec: { nodeName: "sim-node-1", containers: [{ name: "c", image: "busybox" }] } } as never);
  const response = await fetch(`${sim.url}/api/v1/namespaces/default/pods/placed/binding`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ apiVersion: "v1", kind: "Binding", metadata: { name: "placed" }, target: { apiVersion: "v1", kind: "Node", name: "elsewhere" } }),
  });
  assert.equal(response.status, 409);
  const status = (await response.json()) as Obj;
  assert.equal(status.reason, "Conflict");
  assert.equal(status.message, 'Operation cannot be fulfilled on pods/binding "placed": pod placed is already assigned to node "sim-node-1"');
});
