/**
 * Workload controllers through the real kubectl against the sim: Deployment revisions
 * (`kubectl rollout history` and `rollout undo`, which patches the Deployment's template to
 * an old ReplicaSet's), DaemonSets (a pod per matching node) and StatefulSets (ordered,
 * stable names), each followed with `kubectl rollout status`.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startSim, type RunningSim } from "../../sim/index.ts";
import { KUBECTL_SKIP, kubectlFor, type Kubectl } from "./kubectl.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested status

const skip = KUBECTL_SKIP;
let sim: RunningSim;
let dir: string;
let kubectl: Kubectl;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "edgeloop-kubectl-workloads-"));
  sim = await startSim({ port: 0, kubeconfigPath: join(dir, "kubeconfig"), nodes: 3 });
  kubectl = kubectlFor(join(dir, "kubeconfig"));
});

after(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
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
