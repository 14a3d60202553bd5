/**
 * NerveX's replicas POST under the faults of issue 28 (findings 1 and 2), through the
 * relay's whole forward path on the sim: the Worker's answer to the relay lost (the
 * client gets a 503 and sends the request again; a POST and a DELETE), a partial create answered 500 and
 * retried, and the client's retry racing its first attempt. Every reply must name only
 * pods that exist, and the job must end with exactly the replicas asked for. The relay
 * killed mid-apply is the chaos suite's (`npm run chaos`); its Worker half is in
 * test/worker/replicas-retry.test.ts. The relay is the test's own, whose transport can
 * lose the Worker's answer (on a real control plane, run as the installed ServiceAccount);
 * the partial create is a sim fault, so it runs on the sim only.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { startRelay } from "../../relay/index.ts";
import { httpTransport, type WorkerTransport } from "../../relay/deliver/worker-client.ts";
import { waitForObject } from "../support/cluster-waits.ts";
import { call, coordinatorEnv, type ClientReply } from "../support/di-engine-client.ts";
import { TARGET, createNamespaces, e2eStack, type E2EStack } from "./harness.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested objects

const FIXTURES = join(import.meta.dirname, "../../functions/controllers/nervex/fixtures");
const POD = { apiVersion: "v1", kind: "Pod" };
const SERVICE = { apiVersion: "v1", kind: "Service" };
const JOB_NAME = "nervexjob-example";
const simOnly = TARGET === "cluster" ? "a sim fault refuses the create" : false;

let stack: E2EStack;
/** When set, the Worker's next answer to a replicas call is lost on its way to the relay (the Worker decided it). */
let loseNextAnswer = false;

/** The relay's transport to the Worker, losing one answer when asked. */
const http = httpTransport();
const losingTransport: WorkerTransport = async (url, init) => {
  const response = await http(url, init);
  if (loseNextAnswer && url.endsWith("/v1/api/replicas")) {
    loseNextAnswer = false;
    await response.text();
    throw new Error("the Worker's answer was lost (test)");
  }
  return response;
};

before(async () => {
  stack = await e2eStack({ nodes: 2 });
  // The stack's relay replaced by one whose Worker answers can be lost, on the same ports, with the same identity.
  const kubeconfigPath = stack.installed?.relayKubeconfigPath ?? stack.sim?.kubeconfigPath ?? "";
  await stack.relay.stop();
  const front = stack.front;
  if (!front) throw new Error("the stack serves the admission front on loopback");
  stack.relay = await startRelay({ workerUrl: stack.worker.url, secret: stack.secret, kubeconfigPath, front: { port: front.port, certFile: front.certFile, keyFile: front.keyFile }, api: { port: Number(new URL(stack.apiUrl).port), host: "127.0.0.1" }, opsPort: 0, concurrency: 16, logLevel: "error", transport: losingTransport });
  await createNamespaces(stack, ["lost", "partial", "racing"]);
});

after(async () => {
  await stack.stop();
});

/** The mock NerveXJob in `namespace`, and the server and coordinator its coordinator is told. */
async function runningJob(namespace: string): Promise<{ server: string; coordinator: string }> {
  const [document] = parseAllDocuments(readFileSync(join(FIXTURES, "nervex-mock-nervexjob.yaml"), "utf8"));
  const job = document?.toJS() as Obj;
  await stack.cluster.create({ ...job, metadata: { ...job.metadata, namespace } } as KubeObject);
  const pod = (await waitForObject(stack.cluster, POD, namespace, `${JOB_NAME}-coordinator`, (p) => (p as Obj).status?.phase === "Running")) as Obj;
  const env = coordinatorEnv(pod);
  return { server: env.KUBERNETES_SERVER_URL, coordinator: env.KUBERNETES_POD_NAME };
}

async function collectors(namespace: string): Promise<string[]> {
  const pods = (await stack.cluster.list(POD, { namespace, labelSelector: `nervexjob-name=${JOB_NAME},replica-type=collector` })).items as Obj[];
  return pods.filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name as string).sort();
}

async function services(namespace: string): Promise<string[]> {
  const all = (await stack.cluster.list(SERVICE, { namespace, labelSelector: `nervexjob-name=${JOB_NAME},replica-type=collector` })).items as Obj[];
  return all.map((s) => s.metadata.name as string).sort();
}

const podOf = (url: string): string => url.split(".")[0] ?? "";

function urlsOf(reply: ClientReply): string[] {
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return ((reply.body.data as Obj).collectors as string[]).map(podOf).sort();
}

test("the Worker's answer to the relay lost: a POST's retry ends with the 5 collectors its reply names, each existing; a DELETE's with the 2 it names gone", async () => {
  const { server, coordinator } = await runningJob("lost");
  const body = { namespace: "lost", coordinator, collectors: { replicas: 5 } };
  loseNextAnswer = true;
  const first = await call(server, "POST", "/v1alpha1/replicas", body);
  assert.equal(first.status, 503, "the relay could not read the Worker's answer");
  assert.deepEqual(await collectors("lost"), [], "nothing was applied");
  const urls = urlsOf(await call(server, "POST", "/v1alpha1/replicas", body));
  assert.equal(urls.length, 5);
  // The relay replies only once the creates are applied: each pod exists now.
  assert.deepEqual(await collectors("lost"), urls, "every URL of the reply is a pod, and no other pod was made");
  assert.deepEqual(await services("lost"), urls);

  // A DELETE of 2 whose answer is lost: the retry's reply follows the deletes it names.
  const removal = { namespace: "lost", coordinator, collectors: { replicas: 2 } };
  loseNextAnswer = true;
  assert.equal((await call(server, "DELETE", "/v1alpha1/replicas", removal)).status, 503);
  assert.deepEqual(await collectors("lost"), urls, "nothing was deleted");
  const removed = urlsOf(await call(server, "DELETE", "/v1alpha1/replicas", removal));
  assert.equal(removed.length, 2);
  await waitFor("the 2 deleted collectors gone", () => collectors("lost"), (names) => names.length <= 3);
  assert.deepEqual(await collectors("lost"), urls.filter((name) => !removed.includes(name)), "exactly the 2 the reply names are gone");
});

test("a partial create answered 500, then retried: exactly the 20 collectors asked for, each in the reply", { skip: simOnly }, async () => {
  const { server, coordinator } = await runningJob("partial");
  const body = { namespace: "partial", coordinator, collectors: { replicas: 20 } };
  // The first pod create is refused; the others of its run (16 creates at once) go through.
  stack.sim?.faults.add({ verbs: ["create"], resources: ["pods"], namespace: "partial", answer: { type: "status", code: 500 }, count: 1 });
  const first = await call(server, "POST", "/v1alpha1/replicas", body);
  assert.equal(first.status, 500, JSON.stringify(first.body));
  const partial = await collectors("partial");
  assert.ok(partial.length > 0 && partial.length < 20, `a partial create: ${partial.length} of 20`);
  const urls = urlsOf(await call(server, "POST", "/v1alpha1/replicas", body));
  assert.equal(urls.length, 20);
  assert.ok(partial.every((name) => urls.includes(name)), "the first attempt's pods are the retry's");
  assert.deepEqual(await collectors("partial"), urls, `20 collectors, not ${(await collectors("partial")).length}: none beside the reply`);
  assert.deepEqual(await services("partial"), urls);
});

test("the client's retry racing its first attempt (a timeout while the relay applies): both replies name the same 12 collectors, and only they exist", async () => {
  const { server, coordinator } = await runningJob("racing");
  const body = { namespace: "racing", coordinator, collectors: { replicas: 12 } };
  // Pod creates slowed on the sim, so the second attempt arrives while the first is applying (on a real API server they race as they come).
  stack.sim?.faults.add({ verbs: ["create"], resources: ["pods"], namespace: "racing", answer: { type: "delay", ms: 150 }, count: 12 });
  const [a, b] = await Promise.all([call(server, "POST", "/v1alpha1/replicas", body), call(server, "POST", "/v1alpha1/replicas", body)]);
  const first = urlsOf(a);
  assert.deepEqual(urlsOf(b), first);
  assert.equal(first.length, 12);
  await waitFor("the racing creates to settle", () => collectors("racing"), (names) => names.length >= 12);
  assert.deepEqual(await collectors("racing"), first);
});
