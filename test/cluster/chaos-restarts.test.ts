/**
 * The chaos rows that exist on a real control plane (`EDGELOOP_E2E_TARGET=cluster`; the
 * sim runs them all in `npm run chaos`): kube-apiserver restarted in the middle of a gang
 * placement and of a NerveX replicas POST. A real restart loses no acknowledged write
 * (etcd fsyncs before it answers), so these check that nothing is lost or done twice
 * across the restart itself: every member bound; the replicas reply names exactly the
 * pods that exist and no pod exists that it does not name. Lost writes are the sim's
 * (`npm run chaos`, "API server restart, lost writes").
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import { createNamespaces, e2eStack, TARGET, type E2EStack } from "../e2e/harness.ts";
import { describePods, waitForObject } from "../support/cluster-waits.ts";
import { describeAttempts, postCollectors } from "../chaos/replicas-client.ts";
import { gangMember, NAMESPACE, nervexJob, REPLICAS_JOB } from "../chaos/workload.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const POD = { apiVersion: "v1", kind: "Pod" };
const skip = TARGET === "cluster" ? false : "a real control plane only (EDGELOOP_E2E_TARGET=cluster); the sim's rows are in npm run chaos";
const GANG = "cp-gang";
const GANG_SIZE = 8;
const COLLECTORS = 20;
const COLLECTOR_PODS = `nervexjob-name=${REPLICAS_JOB},replica-type=collector`;
let stack: E2EStack;

async function livePods(selector: string): Promise<Obj[]> {
  return ((await stack.cluster.list(POD, { namespace: NAMESPACE, labelSelector: selector })).items as Obj[]).filter((p) => !p.metadata.deletionTimestamp);
}

before(async () => {
  if (skip) return;
  stack = await e2eStack({ nodes: ["node-1", "node-2"] });
  await createNamespaces(stack, [NAMESPACE]);
  await stack.cluster.create(nervexJob(REPLICAS_JOB));
  await waitForObject(stack.cluster, POD, NAMESPACE, `${REPLICAS_JOB}-coordinator`, (p) => (p as Obj).status?.phase === "Running", 60_000);
});

after(async () => {
  await stack?.stop();
});

test("kube-apiserver restarted during a gang placement: every member bound", { skip, timeout: 180_000 }, async () => {
  const controlPlane = stack.controlPlane ?? assert.fail("a real control plane");
  for (let i = 0; i < GANG_SIZE; i++) await stack.cluster.create(gangMember(`${GANG}-${i}`, GANG, GANG_SIZE));
  await controlPlane.restartApiServer();
  const members = await waitFor("every member bound", () => livePods(`fluxnetes.group-name=${GANG}`), (pods) => pods.length === GANG_SIZE && pods.every((p) => p.spec.nodeName), { timeoutMs: 90_000, describe: describePods });
  assert.equal(members.length, GANG_SIZE);
});

test("kube-apiserver restarted during a replicas POST: the 200 names the pods that exist, and only those exist", { skip, timeout: 180_000 }, async () => {
  const controlPlane = stack.controlPlane ?? assert.fail("a real control plane");
  const posting = postCollectors(new URL(stack.apiUrl).host, COLLECTORS, undefined, 120_000);
  // The restart meets the POST while its pods are being created.
  await waitFor("the first collector", () => livePods(COLLECTOR_PODS), (pods) => pods.length > 0, { timeoutMs: 30_000, intervalMs: 5 });
  await controlPlane.restartApiServer();
  const outcome = await posting;
  const urls = outcome.urls ?? assert.fail(`no 200 (${describeAttempts(outcome.attempts)})`);
  const live = new Set((await livePods(COLLECTOR_PODS)).map((p) => String(p.metadata.name)));
  const named = urls.map((url) => url.split(".")[0] ?? "");
  assert.deepEqual(named.filter((pod) => !live.has(pod)), [], `every URL names a pod (client: ${describeAttempts(outcome.attempts)})`);
  assert.equal(urls.length, COLLECTORS, "the reply names what was asked");
  assert.equal(live.size, COLLECTORS, `no collector beyond those the reply names (client: ${describeAttempts(outcome.attempts)})`);
});
