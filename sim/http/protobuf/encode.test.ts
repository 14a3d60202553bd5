import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeBody } from "./decode.ts";
import { encodeBody } from "./encode.ts";
import { unwrap } from "./envelope.ts";
import { messageType } from "./schema.ts";

type Obj = Record<string, unknown>;

/** JSON → protobuf → JSON: what a protobuf client reads back must be what the sim holds. */
function roundTrip(object: Obj): Obj {
  const bytes = encodeBody(object);
  assert.ok(bytes, `${String(object.apiVersion)} ${String(object.kind)} encodes`);
  return decodeBody(bytes);
}

const meta = { name: "x", namespace: "default", uid: "u-1", resourceVersion: "7", generation: 2, creationTimestamp: "2026-01-02T03:04:05Z", labels: { app: "x" } };

test("Namespace, ConfigMap and Secret survive the round trip", () => {
  for (const object of [
    { kind: "Namespace", apiVersion: "v1", metadata: { name: "ns1", uid: "u", creationTimestamp: "2026-01-02T03:04:05Z" }, spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } },
    { kind: "ConfigMap", apiVersion: "v1", metadata: meta, data: { a: "b" }, binaryData: { bin: Buffer.from([0, 1, 255]).toString("base64") }, immutable: false },
    { kind: "Secret", apiVersion: "v1", metadata: meta, data: { user: Buffer.from("admin").toString("base64") }, type: "Opaque" },
  ]) {
    assert.deepEqual(roundTrip(object), object);
  }
});

test("a Deployment with strategy, probes, resources and status survives the round trip", () => {
  const deployment = {
    kind: "Deployment",
    apiVersion: "apps/v1",
    metadata: { ...meta, annotations: { "deployment.kubernetes.io/revision": "1" }, ownerReferences: [{ apiVersion: "v1", kind: "X", name: "o", uid: "u-0", controller: true, blockOwnerDeletion: true }] },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: "x" }, matchExpressions: [{ key: "tier", operator: "In", values: ["a", "b"] }] },
      template: {
        metadata: { labels: { app: "x" }, annotations: { "kubectl.kubernetes.io/restartedAt": "2026-01-02T03:04:05Z" } },
        spec: {
          containers: [
            {
              name: "c",
              image: "nginx",
              ports: [{ containerPort: 80, protocol: "TCP" }],
              resources: { limits: { cpu: "1", memory: "128Mi" } },
              livenessProbe: { tcpSocket: { port: 80 }, initialDelaySeconds: 3 },
              env: [{ name: "K", valueFrom: { secretKeyRef: { name: "s", key: "k" } } }],
            },
          ],
          restartPolicy: "Always",
          terminationGracePeriodSeconds: 30,
          tolerations: [{ key: "k", operator: "Exists", effect: "NoExecute", tolerationSeconds: 0 }],
          nodeSelector: { zone: "edge" },
        },
      },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: 1 } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: {
      observedGeneration: 2,
      replicas: 1,
      readyReplicas: 1,
      conditions: [{ type: "Available", status: "True", lastUpdateTime: "2026-01-02T03:04:05Z", lastTransitionTime: "2026-01-02T03:04:05Z", reason: "MinimumReplicasAvailable", message: "ok" }],
    },
  };
  assert.deepEqual(roundTrip(deployment), deployment);
});

test("a Job, a Service and a Pod with status survive the round trip", () => {
  const job = {
    kind: "Job",
    apiVersion: "batch/v1",
    metadata: meta,
    spec: { backoffLimit: 6, completions: 1, parallelism: 1, suspend: false, selector: { matchLabels: { "batch.kubernetes.io/controller-uid": "u-1" } }, template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "Never" } } },
    status: { active: 1, startTime: "2026-01-02T03:04:05Z", conditions: [{ type: "Complete", status: "True", lastTransitionTime: "2026-01-02T03:04:06Z" }], uncountedTerminatedPods: {} },
  };
  const service = {
    kind: "Service",
    apiVersion: "v1",
    metadata: meta,
    spec: { ports: [{ name: "http", protocol: "TCP", port: 8080, targetPort: 80 }], selector: { app: "x" }, clusterIP: "10.96.0.9", clusterIPs: ["10.96.0.9"], type: "ClusterIP", sessionAffinity: "None", ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack", internalTrafficPolicy: "Cluster" },
    status: { loadBalancer: { ingress: [{ ip: "192.0.2.1" }] } },
  };
  const pod = {
    kind: "Pod",
    apiVersion: "v1",
    metadata: { ...meta, deletionTimestamp: "2026-01-02T03:05:00Z", deletionGracePeriodSeconds: 0, finalizers: ["f"] },
    spec: { nodeName: "sim-node-1", containers: [{ name: "c", image: "busybox", command: ["sh", "-c", "true"] }], volumes: [{ name: "v", secret: { secretName: "s", defaultMode: 420 } }] },
    status: {
      phase: "Succeeded",
      podIP: "10.244.0.5",
      podIPs: [{ ip: "10.244.0.5" }],
      conditions: [{ type: "Ready", status: "False", lastTransitionTime: "2026-01-02T03:04:05Z", reason: "PodCompleted" }],
      // restartCount, ready and exitCode have no omitempty: Go's JSON keeps their zeros.
      containerStatuses: [{ name: "c", image: "busybox", imageID: "sim://busybox", ready: false, restartCount: 0, started: false, state: { terminated: { exitCode: 0, reason: "Completed", startedAt: "2026-01-02T03:04:05Z", finishedAt: "2026-01-02T03:04:06Z" } } }],
    },
  };
  for (const object of [job, service, pod]) assert.deepEqual(roundTrip(object), object);
});

test("lists, a Scale and an error Status are encoded under their own kinds", () => {
  const list = { kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "9", continue: "t", remainingItemCount: 0 }, items: [{ metadata: { name: "a" }, data: { k: "v" } }] };
  assert.deepEqual(roundTrip(list), list);
  const scale = { kind: "Scale", apiVersion: "autoscaling/v1", metadata: { name: "web", namespace: "default" }, spec: { replicas: 3 }, status: { replicas: 2, selector: "app=web" } };
  assert.deepEqual(roundTrip(scale), scale);
  const status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: 'deployments.apps "x" not found', reason: "NotFound", details: { name: "x", group: "apps", kind: "deployments" }, code: 404 };
  const bytes = encodeBody(status);
  assert.ok(bytes);
  assert.deepEqual({ ...unwrap(bytes), raw: undefined }, { apiVersion: "v1", kind: "Status", raw: undefined });
  const { metadata: _empty, ...rest } = status;
  assert.deepEqual(decodeBody(bytes), rest);
});

test("what the definitions do not declare is not sent; a kind without a definition is not encoded", () => {
  const decoded = roundTrip({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "a", managedFields: [{ manager: "m" }] }, data: { k: "v" }, extra: true });
  assert.deepEqual(decoded, { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "a" }, data: { k: "v" } });
  assert.equal(encodeBody({ kind: "Widget", apiVersion: "example.com/v1", metadata: { name: "w" } }), undefined);
  assert.equal(messageType("v1", "Table"), undefined);
});

test("a PriorityClass survives the round trip: value 0 and preemptionPolicy kept, false globalDefault left out", () => {
  const pc = { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: "low" }, value: 0, description: "d", preemptionPolicy: "Never" };
  assert.deepEqual(roundTrip(pc), pc);
  assert.deepEqual(roundTrip({ ...pc, value: -5, globalDefault: true }), { ...pc, value: -5, globalDefault: true });
  assert.deepEqual(roundTrip({ ...pc, globalDefault: false }), pc);
});
