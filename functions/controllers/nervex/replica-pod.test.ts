import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { KubeObject } from "../../../protocol/index.ts";
import { parseManifests } from "../../kit/testing/index.ts";
import { coordinatorName, replicaName } from "./names.ts";
import { replicaObjects } from "./replica-pod.ts";
import { NerveXJob } from "./schema.ts";

const settings = { apiAddress: "edgeloop-relay.edgeloop-system:8080" };

function loadJob(file: string, namespace = "team-a"): NerveXJob {
  const manifest = parseManifests(readFileSync(new URL(`fixtures/${file}`, import.meta.url), "utf8"))[0];
  const job = NerveXJob.parse(manifest);
  return { ...job, metadata: { ...job.metadata, namespace, uid: "job-uid" } };
}

interface Container {
  name: string;
  env?: { name: string; value: string }[];
  ports?: { name: string; containerPort: number }[];
  resources?: Record<string, Record<string, string>>;
}

function spec(object: KubeObject): Record<string, unknown> & { containers: Container[]; volumes?: { name: string }[] } {
  return object["spec"] as Record<string, unknown> & { containers: Container[]; volumes?: { name: string }[] };
}

function envOf(container: Container | undefined): Record<string, string> {
  return Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value]));
}

test("the coordinator of the mock job: default port, five env vars, labels, owner, restartPolicy Never", () => {
  const job = loadJob("nervex-mock-nervexjob.yaml");
  const name = coordinatorName("nervexjob-example");
  const { pod, service, port } = replicaObjects({ job, type: "coordinator", name, template: job.spec.coordinator.template, settings });
  assert.equal(port, 22273);
  assert.equal(pod.metadata.name, "nervexjob-example-coordinator");
  assert.equal(pod.metadata.namespace, "team-a");
  const container = spec(pod).containers[0];
  assert.deepEqual(container?.ports, [{ name: "nervex-port", containerPort: 22273, protocol: "TCP" }]);
  assert.deepEqual(envOf(container), {
    COORDINATOR_PORT: "22273",
    KUBERNETES_POD_NAMESPACE: "team-a",
    KUBERNETES_POD_NAME: "nervexjob-example-coordinator",
    KUBERNETES_SERVER_URL: "edgeloop-relay.edgeloop-system:8080",
    KUBERNETES_COORDINATOR_URL: "nervexjob-example-coordinator.team-a:22273",
  });
  assert.equal(spec(pod)["restartPolicy"], "Never");
  // An empty priorityClassName (the fixture's) is not set.
  assert.equal(spec(pod)["priorityClassName"], undefined);
  assert.deepEqual(pod.metadata.labels, {
    "group-name": "nervex.sensetime.com",
    "nervexjob-name": "nervexjob-example",
    "controller-name": "nervex-operator",
    "replica-type": "coordinator",
    "pod-name": "nervexjob-example-coordinator",
  });
  assert.deepEqual(pod.metadata.ownerReferences, [
    { apiVersion: "nervex.sensetime.com/v1alpha1", kind: "NerveXJob", name: "nervexjob-example", uid: "job-uid", controller: true, blockOwnerDeletion: true },
  ]);
  assert.deepEqual(service.metadata.name, pod.metadata.name);
  assert.deepEqual(service["spec"], {
    clusterIP: "None",
    selector: pod.metadata.labels,
    ports: [{ name: "nervex-port", protocol: "TCP", port: 22273, targetPort: 22273 }],
  });
  assert.deepEqual(service.metadata.ownerReferences, pod.metadata.ownerReferences);
});

test("a collector of the cartpole job: its declared port, COLLECTOR_PORT, the coordinator's URL, the job's volumes after the template's", () => {
  const job = loadJob("nervex_v1alpha1_nervexjob.yaml");
  const collector = job.spec.collector?.template;
  assert.ok(collector);
  const name = replicaName("nervexjob-example", "collector", "abcde");
  const { pod, service, port } = replicaObjects({ job, type: "collector", name, template: collector, settings });
  assert.equal(port, 22270);
  const env = envOf(spec(pod).containers[0]);
  // The template's own variables are kept, ours follow.
  assert.deepEqual(Object.keys(env), ["LC_ALL", "LANG", "PYTHONUNBUFFERED", "COLLECTOR_PORT", "KUBERNETES_POD_NAMESPACE", "KUBERNETES_POD_NAME", "KUBERNETES_SERVER_URL", "KUBERNETES_COORDINATOR_URL"]);
  assert.equal(env["COLLECTOR_PORT"], "22270");
  assert.equal(env["KUBERNETES_COORDINATOR_URL"], "nervexjob-example-coordinator.team-a:22270");
  assert.deepEqual(spec(pod).volumes?.map((v) => v.name), ["data-dir", "cache-volume"]);
  assert.deepEqual(spec(pod).volumes?.[1], { name: "cache-volume", emptyDir: { medium: "Memory", sizeLimit: "128Mi" } });
  assert.equal(pod.metadata.labels?.["replica-type"], "collector");
  assert.deepEqual((service["spec"] as { ports: unknown[] }).ports, [{ name: "nervex-port", protocol: "TCP", port: 22270, targetPort: 22270 }]);
});

test("priorityClassName, template labels, env replaced not duplicated, extras, resources on nervex-container only, another owner", () => {
  const job = loadJob("nervex-mock-nervexjob.yaml");
  job.spec.priorityClassName = "high";
  const template = {
    metadata: { labels: { app: "mine", "replica-type": "spoofed" } },
    spec: {
      restartPolicy: "OnFailure" as const,
      containers: [
        { name: "sidecar", image: "s", env: [{ name: "LEARNER_PORT", value: "1" }] },
        { name: "nervex-container", image: "n", env: [{ name: "KUBERNETES_POD_NAME", value: "stale" }], resources: { limits: { cpu: "9", "example.com/x": "1" } } },
      ],
    },
  };
  const aggregator: KubeObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "agg", namespace: "team-a", uid: "agg-uid" } };
  const { pod } = replicaObjects({
    job,
    type: "ddp-learner",
    name: "nervexjob-example-ddp-learner-x1",
    template,
    settings,
    owner: aggregator,
    env: [{ name: "WORLD_SIZE", value: "2" }, { name: "LEARNER_PORT", value: "7000" }],
    resources: { cpu: "2", memory: "4Gi", "nvidia.com/gpu": "2" },
  });
  assert.equal(spec(pod)["priorityClassName"], "high");
  assert.equal(spec(pod)["restartPolicy"], "OnFailure");
  assert.equal(pod.metadata.labels?.["app"], "mine");
  assert.equal(pod.metadata.labels?.["replica-type"], "ddp-learner");
  assert.deepEqual(pod.metadata.ownerReferences?.map((r) => [r.kind, r.uid, r.controller]), [["Pod", "agg-uid", true]]);
  const [sidecar, main] = spec(pod).containers;
  for (const container of [sidecar, main]) {
    const names = (container?.env ?? []).map((e) => e.name);
    assert.equal(new Set(names).size, names.length, `no duplicates in ${container?.name ?? ""}`);
    assert.equal(envOf(container)["LEARNER_PORT"], "7000");
    assert.equal(envOf(container)["WORLD_SIZE"], "2");
  }
  assert.equal(envOf(main)["KUBERNETES_POD_NAME"], "nervexjob-example-ddp-learner-x1");
  assert.deepEqual(main?.resources, {
    limits: { cpu: "2", "example.com/x": "1", memory: "4Gi", "nvidia.com/gpu": "2" },
    requests: { cpu: "2", memory: "4Gi", "nvidia.com/gpu": "2" },
  });
  assert.equal(sidecar?.resources, undefined);
  // The port went to nervex-container, not the first container.
  assert.equal(sidecar?.ports, undefined);
  assert.deepEqual(main?.ports, [{ name: "nervex-port", containerPort: 22271, protocol: "TCP" }]);
});

test("a template volume of the same name as a job volume is kept alone", () => {
  const job = loadJob("nervex_v1alpha1_nervexjob.yaml");
  const template = { spec: { containers: [{ name: "nervex-container" }], volumes: [{ name: "data-dir", emptyDir: {} }] } };
  const { pod } = replicaObjects({ job, type: "learner", name: "j-learner-a", template, settings });
  assert.deepEqual(spec(pod).volumes, [{ name: "data-dir", emptyDir: {} }, { name: "cache-volume", emptyDir: { medium: "Memory", sizeLimit: "128Mi" } }]);
});
