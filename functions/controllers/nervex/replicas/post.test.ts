import assert from "node:assert/strict";
import { test } from "node:test";
import { isDns1035Label, isValidLabelValue } from "../../../../protocol/kube/names.ts";
import type { KubeObject } from "../../../../protocol/index.ts";
import { REQUEST_ANNOTATION } from "./attempt.ts";
import { call, created, envelope, existing, mockJob, node, related, request } from "./testing/world.ts";

const job = mockJob("job-a", "team-a");
const coordinator = existing(job, "coordinator", "");
const world = related({ pods: [coordinator], jobs: [job] });
const COORDINATOR = "job-a-coordinator";

interface Container {
  name: string;
  env?: { name: string; value: string }[];
  ports?: { name: string; containerPort: number }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

function container(pod: KubeObject): Container {
  return (pod["spec"] as { containers: Container[] }).containers[0] as Container;
}

function env(pod: KubeObject): Record<string, string> {
  return Object.fromEntries((container(pod).env ?? []).map((e) => [e.name, e.value]));
}

function type(pod: KubeObject): string | undefined {
  return pod.metadata.labels?.["replica-type"];
}

function post(body: unknown, options: { id?: string; related?: Record<string, KubeObject[]>; query?: Record<string, string> } = {}): ReturnType<typeof call> {
  return call(request({ method: "POST", body, id: options.id, related: options.related ?? world, query: options.query }));
}

test("collectors and learners from the job's templates, each with a Service, owned by the job, resources as requests and limits", () => {
  // The client's body: JSON text, no Content-Type.
  const answer = post('{"namespace": "team-a", "coordinator": "job-a-coordinator", "collectors": {"replicas": 2, "cpus": "1", "memory": "1Gi"}, "learners": {"replicas": 1, "cpus": 2, "gpus": 1}}');
  assert.equal(answer.status, 200);
  const pods = created(answer);
  const services = created(answer, "Service");
  assert.deepEqual(pods.map(type), ["collector", "collector", "learner"]);
  assert.deepEqual(services.map((s) => s.metadata.name), pods.map((p) => p.metadata.name));
  for (const object of [...pods, ...services]) {
    assert.deepEqual(object.metadata.ownerReferences?.map((r) => [r.kind, r.uid, r.controller]), [["NerveXJob", "job-a-uid", true]]);
    assert.equal(object.metadata.namespace, "team-a");
  }
  assert.match(pods[0]?.metadata.name ?? "", /^job-a-collector-[a-z0-9]{5}$/);
  assert.match(pods[2]?.metadata.name ?? "", /^job-a-learner-[a-z0-9]{5}$/);
  const collector = container(pods[0] as KubeObject);
  assert.deepEqual(collector.resources, { requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } });
  assert.deepEqual(container(pods[2] as KubeObject).resources, { requests: { cpu: "2", "nvidia.com/gpu": "1" }, limits: { cpu: "2", "nvidia.com/gpu": "1" } });
  assert.equal(env(pods[0] as KubeObject)["COLLECTOR_PORT"], "80");
  assert.equal(env(pods[2] as KubeObject)["LEARNER_PORT"], "80");
  const { success, code, message, data } = envelope(answer);
  assert.deepEqual([success, code, message], [true, 0, "successfully create replicas"]);
  assert.deepEqual(data, {
    namespace: "team-a",
    coordinator: COORDINATOR,
    collectors: pods.slice(0, 2).map((p) => `${p.metadata.name ?? ""}.team-a:80`),
    learners: [`${pods[2]?.metadata.name ?? ""}.team-a:80`],
  });
  assert.deepEqual(answer.onApplyError, { status: 500, body: { success: false, code: 1, message: "failed to create replicas", data: null } });
});

test("zero quantities (the client's \"not asked\") set no resources", () => {
  const answer = post({ namespace: "team-a", coordinator: COORDINATOR, collectors: { replicas: 1, cpus: 0, gpus: 0, memory: "0Gi" } });
  assert.equal(container(created(answer)[0] as KubeObject).resources, undefined);
});

test("names come from the request id: the same id names the same pods, another id others; taken names are skipped", () => {
  const body = { namespace: "team-a", coordinator: COORDINATOR, collectors: { replicas: 3 } };
  const names = (answer: ReturnType<typeof call>): string[] => created(answer).map((p) => p.metadata.name ?? "");
  const first = names(post(body, { id: "seed-1" }));
  assert.deepEqual(names(post(body, { id: "seed-1" })), first);
  assert.equal(new Set(first).size, 3);
  assert.notDeepEqual(names(post(body, { id: "seed-2" })), first);
  const taken = existing(job, "collector", first[0] ?? "");
  const again = names(post(body, { id: "seed-1", related: related({ pods: [coordinator, taken], jobs: [job] }) }));
  assert.ok(!again.includes(first[0] ?? ""), "an existing pod's name is not reused");
  assert.deepEqual(again.slice(0, 2), first.slice(1));
});

test("names and label values stay within 63 characters for a 253-character job name", () => {
  const long = Array.from({ length: 4 }, (_, i) => `${String.fromCharCode(97 + i)}${"x".repeat(61)}`).join(".") + ".a";
  assert.equal(long.length, 253);
  const big = mockJob(long, "team-a", "long-uid");
  const coord = existing(big, "coordinator", "");
  const answer = post(
    { namespace: "team-a", coordinator: coord.pod.metadata.name, collectors: { replicas: 1 }, learners: { replicas: 1, gpus: 10 } },
    { related: related({ pods: [coord], jobs: [big] }) },
  );
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  const objects = [...created(answer), ...created(answer, "Service")];
  assert.equal(objects.length, 8);
  for (const object of objects) {
    assert.ok(isDns1035Label(object.metadata.name ?? "").length === 0, object.metadata.name ?? "");
    for (const value of Object.values(object.metadata.labels ?? {})) assert.ok(isValidLabelValue(value).length === 0, value);
  }
});

test("upstream's table, end to end on nodes with 8, 8, 0 and 4 GPUs", () => {
  const rows: [number, number, [number, number, number, number]][] = [
    [1, 1, [0, 1, 0, 0]],
    [1, 2, [1, 0, 1, 2]],
    [1, 10, [1, 0, 2, 10]],
    [2, 2, [2, 0, 2, 4]],
  ];
  for (const [learners, gpus, expected] of rows) {
    const answer = post({ namespace: "team-a", coordinator: COORDINATOR, learners: { replicas: learners, gpus } });
    const pods = created(answer);
    const count = (t: string): number => pods.filter((p) => type(p) === t).length;
    const gpuPorts = pods.filter((p) => type(p) === "ddp-learner").flatMap((p) => (container(p).ports ?? []).filter((port) => port.name.startsWith("gpu-port-")));
    assert.deepEqual([count("aggregator"), count("learner"), count("ddp-learner"), gpuPorts.length], expected, `(${learners}, ${gpus})`);
    // The learner URLs answered are the aggregators' (or the plain learners').
    const urls = (envelope(answer).data as { learners: string[] }).learners;
    assert.deepEqual(urls, pods.filter((p) => type(p) === "aggregator" || type(p) === "learner").map((p) => `${p.metadata.name ?? ""}.team-a:80`));
  }
});

test("ddp-learners: the GPU split, distributed env, per-GPU ports, owned by the job and labelled with their aggregator", () => {
  const answer = post({ namespace: "team-a", coordinator: COORDINATOR, learners: { replicas: 1, gpus: 10, cpus: "4" } });
  const pods = created(answer);
  const aggregator = pods.find((p) => type(p) === "aggregator") as KubeObject;
  const ddp = pods.filter((p) => type(p) === "ddp-learner");
  assert.equal(ddp.length, 2);
  assert.deepEqual(ddp.map((p) => container(p).resources?.limits?.["nvidia.com/gpu"]), ["8", "2"]);
  assert.deepEqual(ddp.map((p) => container(p).resources?.limits?.["cpu"]), ["4", "4"]);
  const master = `${ddp[0]?.metadata.name ?? ""}.team-a`;
  assert.deepEqual(
    ddp.map((p) => [env(p)["WORLD_SIZE"], env(p)["LOCAL_WORLD_SIZE"], env(p)["START_RANK"], env(p)["MASTER_ADDR"], env(p)["MASTER_PORT"]]),
    [
      ["10", "8", "0", master, "10314"],
      ["10", "2", "8", master, "10314"],
    ],
  );
  assert.deepEqual((container(ddp[1] as KubeObject).ports ?? []).map((p) => [p.name, p.containerPort]), [["nervex-port", 80], ["gpu-port-0", 80], ["gpu-port-1", 81]]);
  for (const p of ddp) {
    assert.equal(p.metadata.labels?.["aggregator-name"], aggregator.metadata.name);
    assert.equal(p.metadata.ownerReferences?.[0]?.uid, "job-a-uid");
  }
  const ddpService = created(answer, "Service").find((s) => s.metadata.name === ddp[0]?.metadata.name) as KubeObject;
  assert.equal((ddpService["spec"] as { ports: unknown[] }).ports.length, 8);
  assert.equal(env(aggregator)["AGGREGATOR_PORT"], "80");
  assert.equal(container(aggregator).resources, undefined);
  // An aggregator comes before its ddp-learners.
  assert.ok(answer.actions.findIndex((a) => a.type === "create" && a.object === aggregator) < answer.actions.findIndex((a) => a.type === "create" && a.object === ddp[0]));
});

test("without GPU nodes a learner's GPUs are not split", () => {
  const answer = post({ namespace: "team-a", coordinator: COORDINATOR, learners: { replicas: 1, gpus: 10 } }, { related: related({ pods: [coordinator], jobs: [job], nodes: [node("cpu-only", 0)] }) });
  assert.deepEqual(created(answer).map(type), ["aggregator", "ddp-learner"]);
});

test("a missing AggregatorConfig fails only requests that need an aggregator", () => {
  const noConfig = related({ pods: [coordinator], jobs: [job], aggregatorConfig: false });
  const plain = post({ namespace: "team-a", coordinator: COORDINATOR, collectors: { replicas: 1 }, learners: { replicas: 2, gpus: 1 } }, { related: noConfig });
  assert.equal(plain.status, 200);
  assert.equal(created(plain).length, 3);
  const gpu = post({ namespace: "team-a", coordinator: COORDINATOR, learners: { replicas: 1, gpus: 2 } }, { related: noConfig });
  assert.equal(gpu.status, 404);
  assert.match(envelope(gpu).message, /nervex-system\/aggregator-config/);
  assert.deepEqual(gpu.actions, []);
});

test("refusals: 400 bad JSON or field, 404 coordinator or job, 409 job being deleted, 400 missing template — nothing applied", () => {
  const serial = { ...job, spec: { coordinator: job.spec.coordinator } };
  const dying = { ...job, metadata: { ...job.metadata, deletionTimestamp: "2026-11-23T11:00:00Z" } };
  const cases: [unknown, Record<string, KubeObject[]>, number, RegExp][] = [
    ["{not json", world, 400, /^body: not valid JSON$/],
    ['{"namespace": "team-a", "coordinator": "job-a-coordinator", "learners": {"replicas": "2"}}', world, 400, /^learners\.replicas: /],
    [{ namespace: "team-a", coordinator: "nope", collectors: { replicas: 1 } }, world, 404, /coordinator team-a\/nope not found/],
    [{ namespace: "team-a", coordinator: COORDINATOR, collectors: { replicas: 1 } }, related({ pods: [coordinator], jobs: [] }), 404, /NerveXJob team-a\/job-a not found/],
    [{ namespace: "team-a", coordinator: COORDINATOR, collectors: { replicas: 1 } }, related({ pods: [coordinator], jobs: [dying] }), 409, /being deleted/],
    [{ namespace: "team-a", coordinator: COORDINATOR, collectors: { replicas: 1 } }, related({ pods: [coordinator], jobs: [serial] }), 400, /^collectors\.replicas: .*no collector template/],
    [{ namespace: "team-a", coordinator: COORDINATOR, learners: { replicas: 100, gpus: 256 } }, related({ pods: [coordinator], jobs: [job], nodes: [node("one", 1)] }), 400, /^learners\.gpus: /],
  ];
  for (const [body, rel, status, message] of cases) {
    const answer = post(body, { related: rel });
    assert.equal(answer.status, status, JSON.stringify(body));
    assert.match(envelope(answer).message, message);
    assert.equal(envelope(answer).code, 1);
    assert.deepEqual(answer.actions, []);
  }
  // A serial job may still be asked for nothing.
  assert.equal(post({ namespace: "team-a", coordinator: COORDINATOR }, { related: related({ pods: [coordinator], jobs: [serial] }) }).status, 200);
});

test("a coordinator of another job's name in another namespace is not found (the body's namespace scopes the lookup)", () => {
  const answer = post({ namespace: "team-b", coordinator: COORDINATOR, collectors: { replicas: 1 } });
  assert.equal(answer.status, 404);
});

test("a repeat under the first attempt's id creates only what that attempt has not made, and answers the same replicas; a marker on another job's pod does not count", () => {
  const body = { namespace: "team-a", coordinator: COORDINATOR, collectors: { replicas: 3 }, learners: { replicas: 2, gpus: 10 } };
  const nodes = [node("n1", 8), node("n2", 8)];
  const first = call(request({ method: "POST", body, id: "attempt-1", related: related({ pods: [coordinator], jobs: [job], nodes }) }));
  const creates = first.actions.filter((a) => a.type === "create");
  assert.ok(creates.every((a) => a.type === "create" && a.ifAbsent === true && a.object.metadata.annotations?.[REQUEST_ANNOTATION] === "attempt-1"), "every create is marked and idempotent");
  // Half of the first attempt's objects exist (an aggregator's group cut in the middle), with what the API server adds.
  const made = creates.slice(0, Math.floor(creates.length / 2)).flatMap((a) => (a.type === "create" ? [{ ...a.object, metadata: { ...a.object.metadata, uid: `${a.object.metadata.name ?? ""}-uid` } }] : []));
  const foreignJob = mockJob("job-b", "team-a");
  const lookalike = existing(foreignJob, "collector", "job-b-collector-zzzzz");
  const marked = { ...lookalike.pod, metadata: { ...lookalike.pod.metadata, annotations: { [REQUEST_ANNOTATION]: "attempt-1" } } };
  const world2 = related({ pods: [coordinator], jobs: [job], nodes });
  const retry = call(request({ method: "POST", body, id: "attempt-1", related: { ...world2, "Pod.v1": [...(world2["Pod.v1"] ?? []), ...made.filter((o) => o.kind === "Pod"), marked], "Service.v1": made.filter((o) => o.kind === "Service") } }));
  assert.deepEqual(envelope(retry).data, envelope(first).data, "the same replicas");
  const key = (o: KubeObject): string => `${o.kind}/${o.metadata.name ?? ""}`;
  const rest = creates.slice(made.length).flatMap((a) => (a.type === "create" ? [key(a.object)] : []));
  assert.deepEqual(retry.actions.flatMap((a) => (a.type === "create" ? [key(a.object)] : [])), rest, "exactly what the first attempt did not make");
  const fresh = call(request({ method: "POST", body, id: "attempt-2", related: related({ pods: [coordinator], jobs: [job], nodes }) }));
  assert.notDeepEqual(envelope(fresh).data, envelope(first).data, "another request (after the window) makes other replicas");
});
