/**
 * Jobs and workload Events through the real kubectl against the sim: what `kubectl
 * apply`, `get`, `describe`, `patch`, `wait` and `delete` show for batch/v1 Jobs, and the
 * Events of the ReplicaSet and Deployment controllers. Containers finish through the
 * sim's `run-seconds` / `exit-code` annotations, except in the Fluxnetes test, which
 * runs the upstream manifests as they are.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parse, stringify } from "yaml";
import { present, waitFor } from "../../cli/wait.ts";
import { startSim, type RunningSim } from "../../sim/index.ts";
import { KUBECTL_SKIP, kubectlFor, type Kubectl } from "./kubectl.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested status

// The upstream Fluxnetes examples, byte-identical (their sources: test/fixtures/fluxnetes/SOURCES.md).
const FLUXNETES = join(import.meta.dirname, "../fixtures/fluxnetes");
const RUN_SECONDS = "sim.edgeloop.dev/run-seconds";
const EXIT_CODE = "sim.edgeloop.dev/exit-code";
const skip = KUBECTL_SKIP;

let sim: RunningSim;
let dir: string;
let kubectl: Kubectl;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "edgeloop-kubectl-jobs-"));
  sim = await startSim({ port: 0, kubeconfigPath: join(dir, "kubeconfig"), nodes: 2 });
  kubectl = kubectlFor(join(dir, "kubeconfig"));
});

after(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface JobOptions {
  readonly spec?: Obj;
  readonly runSeconds?: number;
  readonly exitCode?: number;
  readonly restartPolicy?: string;
}

/** A Job manifest whose containers run `runSeconds` and exit with `exitCode` (terminationGracePeriodSeconds 0, so deleted pods go at once). */
function jobYaml(name: string, options: JobOptions = {}): string {
  const annotations = { [RUN_SECONDS]: String(options.runSeconds ?? 0.3), ...(options.exitCode ? { [EXIT_CODE]: String(options.exitCode) } : {}) };
  return stringify({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name },
    spec: {
      ...options.spec,
      template: { metadata: { annotations }, spec: { restartPolicy: options.restartPolicy ?? "Never", terminationGracePeriodSeconds: 0, containers: [{ name: "work", image: "busybox:1.36" }] } },
    },
  });
}

async function getJson(args: readonly string[]): Promise<Obj> {
  return JSON.parse(await kubectl([...args, "-o", "json"])) as Obj;
}

async function jobPods(name: string, namespace = "default"): Promise<Obj[]> {
  return (await getJson(["get", "pods", "-n", namespace, "-l", `batch.kubernetes.io/job-name=${name}`])).items as Obj[];
}

/** The Events about one object, oldest first: `type reason message`. */
async function eventsOf(kind: string, name: string, namespace = "default"): Promise<string[]> {
  const list = await getJson(["get", "events", "-n", namespace, "--field-selector", `involvedObject.kind=${kind},involvedObject.name=${name}`]);
  // Listed by name (random), so put in the order they were recorded.
  const items = (list.items as Obj[]).sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion));
  return items.map((e) => `${String(e.type)} ${String(e.reason)} ${String(e.message)}`);
}

const condition = (job: Obj, type: string): Obj | undefined => (job.status?.conditions ?? []).find((c: Obj) => c.type === type && c.status === "True");

async function jobWhen(name: string, ok: (job: Obj) => boolean, timeoutMs = 20_000, namespace = "default"): Promise<Obj> {
  return waitFor(`job ${name}`, () => getJson(["get", "job", name, "-n", namespace]), ok, { timeoutMs, describe: (job) => JSON.stringify(job.status) });
}

test("a Job runs completions pods, parallelism at a time, to Complete; get, describe and the Events show it", { skip }, async () => {
  assert.match(await kubectl(["apply", "-f", "-"], jobYaml("pi", { spec: { completions: 3, parallelism: 2 } })), /job.batch\/pi created/);
  const running = await jobWhen("pi", (j) => (j.status?.active ?? 0) > 0);
  assert.ok(running.status.active <= 2, "never more than parallelism at once");
  assert.match(await kubectl(["get", "job", "pi"]), /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\npi\s+(Running|Complete)\s+\d\/3\s+\d+s\s+\d+s\n$/);
  await kubectl(["wait", "--for=condition=complete", "job/pi", "--timeout=30s"]);
  const job = await getJson(["get", "job", "pi"]);
  assert.equal(job.status.succeeded, 3);
  assert.equal(job.status.active, undefined);
  assert.deepEqual(job.status.uncountedTerminatedPods, {});
  assert.ok(job.status.startTime && job.status.completionTime);
  assert.deepEqual(job.status.conditions.map((c: Obj) => `${c.type}/${c.reason}`), ["SuccessCriteriaMet/CompletionsReached", "Complete/CompletionsReached"]);
  assert.equal(job.spec.selector.matchLabels["batch.kubernetes.io/controller-uid"], job.metadata.uid);
  assert.equal(job.spec.backoffLimit, 6);
  assert.equal(job.spec.completionMode, "NonIndexed");
  assert.match(await kubectl(["get", "job", "pi"]), /\npi\s+Complete\s+3\/3\s+\d+s\s+\d+s\n$/);
  assert.match(await kubectl(["get", "job", "pi", "-o", "wide"]), /CONTAINERS\s+IMAGES\s+SELECTOR\n.*work\s+busybox:1\.36\s+batch\.kubernetes\.io\/controller-uid=/);

  const pods = await jobPods("pi");
  assert.equal(pods.length, 3);
  for (const pod of pods) {
    assert.equal(pod.status.phase, "Succeeded");
    assert.equal(pod.metadata.finalizers, undefined, "the tracking finalizer is removed once counted");
    assert.deepEqual(pod.metadata.ownerReferences, [{ apiVersion: "batch/v1", kind: "Job", name: "pi", uid: job.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    assert.equal(pod.metadata.labels["controller-uid"], job.metadata.uid);
    assert.match(pod.metadata.name, /^pi-[a-z0-9]{5}$/);
  }
  const events = await eventsOf("Job", "pi");
  assert.deepEqual(events.filter((e) => e.includes("SuccessfulCreate")).sort(), pods.map((p) => `Normal SuccessfulCreate Created pod: ${String(p.metadata.name)}`).sort());
  assert.equal(events.at(-1), "Normal Completed Job completed");
  const described = await kubectl(["describe", "job", "pi"]);
  assert.match(described, /Pods Statuses:\s+0 Active \(0 Ready\) \/ 3 Succeeded \/ 0 Failed/);
  assert.match(described, /Normal\s+SuccessfulCreate\s+\S+\s+job-controller\s+Created pod: pi-/);
  assert.match(described, /Normal\s+Completed\s+\S+\s+job-controller\s+Job completed/);
});

test("an Indexed Job completes each index once: <job>-<index>- pods, index annotation, label, env and hostname, completedIndexes", { skip }, async () => {
  await kubectl(["apply", "-f", "-"], jobYaml("idx", { spec: { completions: 3, parallelism: 3, completionMode: "Indexed" } }));
  await kubectl(["wait", "--for=condition=complete", "job/idx", "--timeout=30s"]);
  const job = await getJson(["get", "job", "idx"]);
  assert.equal(job.status.completedIndexes, "0-2");
  assert.equal(job.status.succeeded, 3);
  const pods = await jobPods("idx");
  assert.deepEqual(pods.map((p) => p.metadata.annotations["batch.kubernetes.io/job-completion-index"]).sort(), ["0", "1", "2"]);
  for (const pod of pods) {
    const index = String(pod.metadata.annotations["batch.kubernetes.io/job-completion-index"]);
    assert.match(pod.metadata.name, new RegExp(`^idx-${index}-[a-z0-9]{5}$`));
    assert.equal(pod.metadata.labels["batch.kubernetes.io/job-completion-index"], index);
    assert.equal(pod.spec.hostname, `idx-${index}`);
    const env = pod.spec.containers[0].env as Obj[];
    assert.deepEqual(env.map((e) => [e.name, e.valueFrom?.fieldRef?.fieldPath]), [["JOB_COMPLETION_INDEX", "metadata.annotations['batch.kubernetes.io/job-completion-index']"]]);
  }
});

test("failed pods count against backoffLimit: a replacement after the pod-failure backoff, then Failed with a Warning Event", { skip }, async () => {
  await kubectl(["apply", "-f", "-"], jobYaml("flaky", { spec: { backoffLimit: 1 }, runSeconds: 0.2, exitCode: 1 }));
  const failed = await jobWhen("flaky", (j) => condition(j, "Failed") !== undefined, 40_000);
  assert.equal(failed.status.failed, 2, "backoffLimit 1: the second failure fails the Job");
  assert.equal(failed.status.succeeded, undefined);
  assert.deepEqual(failed.status.conditions.map((c: Obj) => `${c.type}/${c.reason}/${c.message}`), ["FailureTarget/BackoffLimitExceeded/Job has reached the specified backoff limit", "Failed/BackoffLimitExceeded/Job has reached the specified backoff limit"]);
  assert.equal(failed.status.completionTime, undefined);
  const pods = await jobPods("flaky");
  assert.equal(pods.length, 2);
  const [first, second] = pods.map((p) => Date.parse(p.metadata.creationTimestamp)).sort();
  assert.ok((second ?? 0) - (first ?? 0) >= 9000, "the replacement waited for the 10 s pod-failure backoff");
  assert.match(await kubectl(["get", "job", "flaky"]), /\nflaky\s+Failed\s+0\/1\s+\d+s\s+\d+s\n$/);
  const events = await eventsOf("Job", "flaky");
  assert.equal(events.at(-1), "Warning BackoffLimitExceeded Job has reached the specified backoff limit");
  assert.match(await kubectl(["describe", "job", "flaky"]), /Warning\s+BackoffLimitExceeded\s+\S+\s+job-controller\s+Job has reached the specified backoff limit/);
});

test("restartPolicy OnFailure: container restarts count against backoffLimit; the running pod is deleted and counted failed", { skip }, async () => {
  await kubectl(["apply", "-f", "-"], jobYaml("crashy", { spec: { backoffLimit: 2 }, runSeconds: 0.2, exitCode: 1, restartPolicy: "OnFailure" }));
  const failed = await jobWhen("crashy", (j) => condition(j, "Failed") !== undefined);
  assert.equal(condition(failed, "Failed")?.reason, "BackoffLimitExceeded");
  assert.equal(failed.status.failed, 1);
  assert.ok((await eventsOf("Job", "crashy")).some((e) => /^Normal SuccessfulDelete Deleted pod: crashy-/.test(e)));
  await waitFor("the restarted pod to go (the Job's pods)", async () => (await jobPods("crashy")).map((p) => String(p.metadata.name)), (pods) => pods.length === 0);
});

test("activeDeadlineSeconds: past it the active pods are deleted and the Job fails with DeadlineExceeded", { skip }, async () => {
  await kubectl(["apply", "-f", "-"], jobYaml("slow", { spec: { activeDeadlineSeconds: 2, parallelism: 2, completions: 4 }, runSeconds: 600 }));
  await jobWhen("slow", (j) => (j.status?.active ?? 0) === 2);
  const failed = await jobWhen("slow", (j) => condition(j, "Failed") !== undefined);
  assert.deepEqual(failed.status.conditions.map((c: Obj) => `${c.type}/${c.reason}/${c.message}`), ["FailureTarget/DeadlineExceeded/Job was active longer than specified deadline", "Failed/DeadlineExceeded/Job was active longer than specified deadline"]);
  assert.equal(failed.status.failed, 2, "the deleted active pods count as failed");
  assert.equal(failed.status.active, undefined);
  const elapsed = Date.parse(condition(failed, "Failed")?.lastTransitionTime) - Date.parse(failed.status.startTime);
  assert.ok(elapsed >= 2000 && elapsed < 6000, `failed ${elapsed} ms after the start`);
  const events = await eventsOf("Job", "slow");
  assert.equal(events.filter((e) => e.startsWith("Normal SuccessfulDelete Deleted pod: slow-")).length, 2);
  assert.equal(events.at(-1), "Warning DeadlineExceeded Job was active longer than specified deadline");
  await waitFor("the deleted pods to go (the Job's pods)", async () => (await jobPods("slow")).map((p) => String(p.metadata.name)), (pods) => pods.length === 0);
});

test("suspend: no pods while suspended, resume starts them, suspending again deletes them uncounted; kubectl delete cascades", { skip }, async () => {
  await kubectl(["apply", "-f", "-"], jobYaml("later", { spec: { suspend: true, parallelism: 2, completions: 2 }, runSeconds: 600 }));
  const suspended = await jobWhen("later", (j) => condition(j, "Suspended") !== undefined);
  assert.equal(condition(suspended, "Suspended")?.reason, "JobSuspended");
  assert.equal(suspended.status.startTime, undefined, "a Job created suspended has not started");
  assert.equal((await jobPods("later")).length, 0);
  assert.match(await kubectl(["get", "job", "later"]), /\nlater\s+Suspended\s+0\/2\s+\d+s\n$/);

  await kubectl(["patch", "job", "later", "--type=merge", "-p", '{"spec":{"suspend":false}}']);
  const resumed = await jobWhen("later", (j) => j.status?.active === 2);
  const cond = resumed.status.conditions.find((c: Obj) => c.type === "Suspended");
  assert.deepEqual([cond.status, cond.reason, cond.message], ["False", "JobResumed", "Job resumed"]);
  assert.ok(resumed.status.startTime);

  await kubectl(["patch", "job", "later", "--type=merge", "-p", '{"spec":{"suspend":true}}']);
  const again = await jobWhen("later", (j) => condition(j, "Suspended") !== undefined && !j.status?.active);
  assert.equal(again.status.failed, undefined, "pods deleted for a suspension are not failures");
  await waitFor("the suspended Job's pods to go (those)", async () => (await jobPods("later")).map((p) => String(p.metadata.name)), (pods) => pods.length === 0);
  const events = await eventsOf("Job", "later");
  for (const reason of ["Normal Suspended Job suspended", "Normal Resumed Job resumed"]) assert.ok(events.includes(reason), reason);
  assert.equal(events.filter((e) => e.startsWith("Normal SuccessfulDelete")).length, 2);

  await kubectl(["patch", "job", "later", "--type=merge", "-p", '{"spec":{"suspend":false}}']);
  await jobWhen("later", (j) => j.status?.active === 2);
  assert.match(await kubectl(["delete", "job", "later"]), /job.batch "later" deleted/);
  await waitFor("the Job's pods to be collected (those)", async () => (await jobPods("later")).map((p) => String(p.metadata.name)), (pods) => pods.length === 0);
  await assert.rejects(kubectl(["get", "job", "later"]), /NotFound|not found/);
});

test("a Job deleted without a propagationPolicy orphans its pods, as batch/v1 does (kubectl always asks for background)", { skip }, async () => {
  await kubectl(["apply", "-f", "-"], jobYaml("loose", { runSeconds: 600 }));
  await jobWhen("loose", (j) => j.status?.active === 1);
  const response = await fetch(`${sim.url}/apis/batch/v1/namespaces/default/jobs/loose`, { method: "DELETE" });
  assert.equal(response.status, 200);
  await waitFor("the Job to go (the Jobs listed)", () => kubectl(["get", "jobs", "-o", "name"]), (jobs) => !jobs.includes("job.batch/loose"));
  const [pod] = await waitFor("the orphaned pod, released", () => jobPods("loose"), (pods) => pods.length === 1 && !pods[0]?.metadata.ownerReferences && !pods[0]?.metadata.finalizers);
  assert.equal(pod?.status.phase, "Running");
  await kubectl(["delete", "pod", String(pod?.metadata.name)]);
});

test("ttlSecondsAfterFinished: the finished Job is deleted after its TTL, its pods with it", { skip }, async () => {
  await kubectl(["apply", "-f", "-"], jobYaml("brief", { spec: { ttlSecondsAfterFinished: 1 } }));
  // Completion is read from the Job's Event, which outlives it: polling the Job itself can
  // miss a Complete that lasts 1 s on a loaded machine (the Job is gone by the next poll).
  await waitFor("the Job to complete (its Events)", () => eventsOf("Job", "brief"), (events) => events.includes("Normal Completed Job completed"), { timeoutMs: 20_000 });
  await waitFor("the Job to be deleted (the Jobs listed)", () => kubectl(["get", "jobs", "-o", "name"]), (jobs) => !jobs.includes("job.batch/brief"), { timeoutMs: 15_000 });
  await waitFor("its pods to go (those)", async () => (await jobPods("brief")).map((p) => String(p.metadata.name)), (pods) => pods.length === 0, { timeoutMs: 15_000 });
});

test("a Job whose pod template restarts Always is refused as kube-apiserver refuses it", { skip }, async () => {
  const manifest = stringify({ apiVersion: "batch/v1", kind: "Job", metadata: { name: "always" }, spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }] } } } });
  await assert.rejects(kubectl(["apply", "-f", "-"], manifest), /spec\.template\.spec\.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"/);
});

test("Deployment scaling shows ScalingReplicaSet on the Deployment and SuccessfulCreate/SuccessfulDelete on its ReplicaSet", { skip }, async () => {
  const deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "shop" }, spec: { replicas: 2, selector: { matchLabels: { app: "shop" } }, template: { metadata: { labels: { app: "shop" } }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: "web", image: "nginx:1.27" }] } } } };
  await kubectl(["apply", "-f", "-"], stringify(deployment));
  await kubectl(["rollout", "status", "deployment/shop", "--timeout=30s"]);
  await kubectl(["scale", "deployment/shop", "--replicas=3"]);
  await kubectl(["rollout", "status", "deployment/shop", "--timeout=30s"]);
  await kubectl(["scale", "deployment/shop", "--replicas=1"]);
  await waitFor("one pod left (the pods)", async () => ((await getJson(["get", "pods", "-l", "app=shop"])).items as Obj[]).map((p) => String(p.metadata.name)), (pods) => pods.length === 1);
  const rs = String((await getJson(["get", "rs", "-l", "app=shop"])).items[0].metadata.name);
  assert.deepEqual((await eventsOf("Deployment", "shop")).filter((e) => e.includes("ScalingReplicaSet")), [
    `Normal ScalingReplicaSet Scaled up replica set ${rs} from 0 to 2`,
    `Normal ScalingReplicaSet Scaled up replica set ${rs} from 2 to 3`,
    `Normal ScalingReplicaSet Scaled down replica set ${rs} from 3 to 1`,
  ]);
  const rsEvents = await eventsOf("ReplicaSet", rs);
  assert.equal(rsEvents.filter((e) => /^Normal SuccessfulCreate Created pod: shop-/.test(e)).length, 3);
  assert.equal(rsEvents.filter((e) => /^Normal SuccessfulDelete Deleted pod: shop-/.test(e)).length, 2);
  assert.match(await kubectl(["describe", "deployment", "shop"]), new RegExp(`Normal\\s+ScalingReplicaSet\\s+\\S+\\s+deployment-controller\\s+Scaled up replica set ${rs} from 0 to 2`));
  assert.match(await kubectl(["get", "events", "--field-selector", `involvedObject.name=${rs}`]), /Normal\s+SuccessfulCreate\s+replicaset\/shop-\S+\s+Created pod: shop-/);
});

/** A validating webhook that refuses every pod it is sent. */
async function refusingWebhook(): Promise<Server> {
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const review = JSON.parse(body) as Obj;
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: review.request.uid, allowed: false, status: { code: 403, message: "no pods today" } } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

test("a refused pod create is a FailedCreate Warning with the API error, and the ReplicaFailure condition, until it succeeds", { skip }, async () => {
  const server = await refusingWebhook();
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/refuse`;
    const webhook = { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingWebhookConfiguration", metadata: { name: "refuse-pods" }, webhooks: [{ name: "refuse.pods.example.com", clientConfig: { url }, rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }], objectSelector: { matchLabels: { refuse: "always" } }, sideEffects: "None", admissionReviewVersions: ["v1"] }] };
    await kubectl(["apply", "-f", "-"], stringify(webhook));
    const rs = { apiVersion: "apps/v1", kind: "ReplicaSet", metadata: { name: "refused" }, spec: { replicas: 1, selector: { matchLabels: { refuse: "always" } }, template: { metadata: { labels: { refuse: "always" } }, spec: { containers: [{ name: "web", image: "nginx:1.27" }] } } } };
    await kubectl(["apply", "-f", "-"], stringify(rs));
    const events = await waitFor("FailedCreate (the ReplicaSet's Events)", () => eventsOf("ReplicaSet", "refused"), (seen) => seen.some((e) => e.startsWith("Warning FailedCreate")));
    const warning = events.find((e) => e.startsWith("Warning FailedCreate"));
    assert.equal(warning, 'Warning FailedCreate Error creating: admission webhook "refuse.pods.example.com" denied the request: no pods today');
    const failing = await waitFor("ReplicaFailure (the ReplicaSet's condition)", async () => ((await getJson(["get", "rs", "refused"])).status?.conditions ?? []).find((c: Obj) => c.type === "ReplicaFailure") as Obj | undefined, present);
    assert.deepEqual([failing.status, failing.reason], ["True", "FailedCreate"]);
    await kubectl(["delete", "validatingwebhookconfiguration", "refuse-pods"]);
    await waitFor("the retried create (the pods)", async () => ((await getJson(["get", "pods", "-l", "refuse=always"])).items as Obj[]).map((p) => String(p.metadata.name)), (pods) => pods.length === 1, { timeoutMs: 15_000 });
    await waitFor("ReplicaFailure to clear (the ReplicaSet's conditions)", async () => (await getJson(["get", "rs", "refused"])).status?.conditions, (conditions) => conditions === undefined);
    await kubectl(["delete", "rs", "refused"]);
  } finally {
    server.close();
  }
});

test("the Fluxnetes unsatisfiable Job (cpu: 20 per pod) creates its 10 pods, which stay Pending unschedulable", { skip }, async () => {
  await kubectl(["create", "namespace", "flux-unsat"]);
  await kubectl(["apply", "-n", "flux-unsat", "-f", "-"], defaultScheduler("job-unsatisfiable.yaml"));
  const unschedulable = (p: Obj): boolean => (p.status?.conditions ?? []).some((c: Obj) => c.type === "PodScheduled" && c.status === "False" && c.reason === "Unschedulable");
  const pods = await waitFor("10 pods unschedulable", () => jobPods("job", "flux-unsat"), (items) => items.filter(unschedulable).length === 10, {
    describe: (items) => `${items.length} pods, ${items.filter(unschedulable).length} unschedulable`,
  });
  assert.equal(pods.length, 10);
  assert.match(await kubectl(["get", "job", "job", "-n", "flux-unsat"]), /\njob\s+Running\s+0\/10\s+\d+s\s+\d+s\n$/);
});

/**
 * A Fluxnetes example for the default scheduler: they name `schedulerName: fluxnetes`, a
 * gang scheduler the sim does not have, and a pod for a scheduler that is not running
 * stays Pending for ever, so the field is dropped; the rest is applied as published.
 */
function defaultScheduler(file: string): string {
  const manifest = parse(readFileSync(join(FLUXNETES, file), "utf8")) as Obj;
  delete manifest.spec.template.spec.schedulerName;
  return stringify(manifest);
}

let probed: Promise<void> | undefined;

/**
 * Resolves once this sim's kubelet is seen running a container's command (probed once, with
 * a `sleep 1` pod): the tests below run commands, and the kubelet is the sim's, so a
 * kubelet that does not run them fails those tests rather than skipping them.
 */
function commandsRun(): Promise<void> {
  probed ??= sleepProbe();
  return probed;
}

async function sleepProbe(): Promise<void> {
  const probe = { apiVersion: "v1", kind: "Pod", metadata: { name: "sleep-probe", namespace: "default" }, spec: { restartPolicy: "Never", terminationGracePeriodSeconds: 0, containers: [{ name: "probe", image: "busybox", command: ["sleep", "1"] }] } };
  await kubectl(["apply", "-f", "-"], stringify(probe));
  try {
    await waitFor("a `command: [sleep, \"1\"]` pod to succeed: the sim's kubelet runs container commands (the pod's phase)", async () => (await getJson(["get", "pod", "sleep-probe"])).status?.phase, (phase) => phase === "Succeeded", { timeoutMs: 8000 });
  } finally {
    await kubectl(["delete", "pod", "sleep-probe", "--wait=false"]);
  }
}

test("kubectl create job runs the command given after --", { skip }, async () => {
  await commandsRun();
  assert.match(await kubectl(["create", "job", "hello", "--image=busybox", "--", "echo", "hi"]), /job.batch\/hello created/);
  await kubectl(["wait", "--for=condition=complete", "job/hello", "--timeout=30s"]);
  assert.match(await kubectl(["get", "job", "hello"]), /\nhello\s+Complete\s+1\/1\s+\d+s\s+\d+s\n$/);
});

test("the Fluxnetes example Jobs run to completion on the default scheduler", { skip }, async () => {
  await commandsRun();
  // job-deadline.yaml is left out: its pod-level activeDeadlineSeconds (5 s, under a `sleep 10`) makes it fail on a real cluster.
  const files = ["job.yaml", "job-10.yaml", "batch-job1.yaml", "batch-job2.yaml", "batch-job3.yaml", "batch-job4.yaml", "batch-job5.yaml"];
  for (const [i, file] of files.entries()) {
    // job.yaml and job-10.yaml share a name: each example gets its own namespace.
    await kubectl(["create", "namespace", `flux-${i}`]);
    await kubectl(["apply", "-n", `flux-${i}`, "-f", "-"], defaultScheduler(file));
  }
  for (const [i, file] of files.entries()) {
    const name = String((parse(readFileSync(join(FLUXNETES, file), "utf8")) as Obj).metadata.name);
    const completions = Number((parse(readFileSync(join(FLUXNETES, file), "utf8")) as Obj).spec.completions ?? 1);
    await kubectl(["wait", "-n", `flux-${i}`, "--for=condition=complete", `job/${name}`, "--timeout=60s"]);
    const job = await getJson(["get", "job", name, "-n", `flux-${i}`]);
    assert.equal(job.status.succeeded, completions, file);
  }
});
