import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ApiError } from "../../contract.ts";
import { decodeBody } from "./decode.ts";
import { wrap } from "./envelope.ts";
import { messageType } from "./schema.ts";

/** A body kubectl v1.32.4 sent (testdata/README.md). */
const recorded = (name: string): Uint8Array => readFileSync(new URL(`./testdata/${name}.pb`, import.meta.url));

/** A body built with protobufjs from the sim's own definitions. */
function built(apiVersion: string, kind: string, message: Record<string, unknown>): Uint8Array {
  const type = messageType(apiVersion, kind);
  assert.ok(type, `${apiVersion} ${kind} is defined`);
  return wrap(apiVersion, kind, type.encode(type.fromObject(message)).finish());
}

test("kubectl create namespace: the empty strings and zero times Go always writes are left out", () => {
  assert.deepEqual(decodeBody(recorded("namespace")), { kind: "Namespace", apiVersion: "v1", metadata: { name: "ns1" } });
});

test("kubectl create configmap: data is a map", () => {
  assert.deepEqual(decodeBody(recorded("configmap")), { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "cm1" }, data: { a: "b", c: "d" } });
});

test("kubectl create secret generic: data bytes become base64 strings", () => {
  assert.deepEqual(decodeBody(recorded("secret")), { kind: "Secret", apiVersion: "v1", metadata: { name: "s1" }, data: { user: Buffer.from("admin").toString("base64") } });
});

test("kubectl create deployment: selector, template, container and port, zero values dropped", () => {
  assert.deepEqual(decodeBody(recorded("deployment")), {
    kind: "Deployment",
    apiVersion: "apps/v1",
    metadata: { name: "web", labels: { app: "web" } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "nginx", image: "nginx:1.27", ports: [{ containerPort: 80 }] }] },
      },
    },
  });
});

test("a pointer field keeps its zero value: --replicas=0 stays 0 instead of defaulting to 1", () => {
  const spec = decodeBody(recorded("deployment-zero-replicas")).spec as Record<string, unknown>;
  assert.equal(spec.replicas, 0);
  const template = spec.template as { spec: { containers: { command: string[] }[] } };
  assert.deepEqual(template.spec.containers[0]?.command, ["sleep", "3600"]);
});

test("kubectl create job: batch/v1 with command and restartPolicy", () => {
  assert.deepEqual(decodeBody(recorded("job")), {
    kind: "Job",
    apiVersion: "batch/v1",
    metadata: { name: "j1" },
    spec: { template: { spec: { containers: [{ name: "j1", image: "busybox", command: ["echo", "hi"] }], restartPolicy: "Never" } } },
  });
});

test("kubectl create service: IntOrString as a number or as a string, nodePort kept when set", () => {
  assert.deepEqual(decodeBody(recorded("service-clusterip")), {
    kind: "Service",
    apiVersion: "v1",
    metadata: { name: "svc1", labels: { app: "svc1" } },
    spec: { ports: [{ name: "80-8080", protocol: "TCP", port: 80, targetPort: 8080 }], selector: { app: "svc1" }, type: "ClusterIP" },
  });
  const spec = decodeBody(recorded("service-nodeport")).spec as { ports: unknown[]; type: string };
  assert.deepEqual(spec.ports, [{ name: "8080-http", protocol: "TCP", port: 8080, targetPort: "http", nodePort: 30080 }]);
  assert.equal(spec.type, "NodePort");
});

test("kubectl create serviceaccount, role and rolebinding: rbac.authorization.k8s.io/v1, the core group as an empty string kept in a list", () => {
  assert.deepEqual(decodeBody(recorded("serviceaccount")), { kind: "ServiceAccount", apiVersion: "v1", metadata: { name: "robot" } });
  assert.deepEqual(decodeBody(recorded("role")), {
    kind: "Role",
    apiVersion: "rbac.authorization.k8s.io/v1",
    metadata: { name: "reader" },
    rules: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods", "configmaps"], resourceNames: ["x"] }],
  });
  assert.deepEqual(decodeBody(recorded("rolebinding")), {
    kind: "RoleBinding",
    apiVersion: "rbac.authorization.k8s.io/v1",
    metadata: { name: "read-robot" },
    subjects: [
      { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "alice" },
      { kind: "ServiceAccount", name: "robot", namespace: "default" },
    ],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" },
  });
});

test("a Pod: times as RFC 3339, quantities as strings, inline structs merged, probes, volumes and env sources", () => {
  const body = built("v1", "Pod", {
    metadata: { name: "p", namespace: "", creationTimestamp: { seconds: 1_700_000_000, nanos: 0 }, annotations: { a: "b" } },
    spec: {
      containers: [
        {
          name: "c",
          image: "busybox",
          env: [
            { name: "A", value: "1" },
            { name: "B", valueFrom: { configMapKeyRef: { localObjectReference: { name: "cm" }, key: "k", optional: false } } },
          ],
          resources: { limits: { cpu: { string: "500m" } }, requests: { memory: { string: "64Mi" } } },
          readinessProbe: { handler: { httpGet: { path: "/healthz", port: { type: 1, strVal: "http" } } }, periodSeconds: 5 },
          volumeMounts: [{ name: "data", mountPath: "/data", readOnly: false }],
          stdin: false,
        },
      ],
      volumes: [
        { name: "data", volumeSource: { emptyDir: {} } },
        { name: "cfg", volumeSource: { configMap: { localObjectReference: { name: "cm" }, defaultMode: 420 } } },
      ],
      terminationGracePeriodSeconds: 0,
      hostNetwork: false,
    },
    status: { phase: "Running", startTime: { seconds: 1_700_000_001, nanos: 0 } },
  });
  assert.deepEqual(decodeBody(body), {
    kind: "Pod",
    apiVersion: "v1",
    metadata: { name: "p", creationTimestamp: "2023-11-14T22:13:20Z", annotations: { a: "b" } },
    spec: {
      volumes: [
        { name: "data", emptyDir: {} },
        { name: "cfg", configMap: { name: "cm", defaultMode: 420 } },
      ],
      containers: [
        {
          name: "c",
          image: "busybox",
          env: [
            { name: "A", value: "1" },
            { name: "B", valueFrom: { configMapKeyRef: { name: "cm", key: "k", optional: false } } },
          ],
          resources: { limits: { cpu: "500m" }, requests: { memory: "64Mi" } },
          readinessProbe: { httpGet: { path: "/healthz", port: "http" }, periodSeconds: 5 },
          volumeMounts: [{ name: "data", mountPath: "/data" }],
        },
      ],
      terminationGracePeriodSeconds: 0,
    },
    status: { phase: "Running", startTime: "2023-11-14T22:13:21Z" },
  });
});

test("fields the definitions do not declare are skipped, not fatal", () => {
  const type = messageType("v1", "ConfigMap");
  assert.ok(type);
  const known = type.encode(type.fromObject({ metadata: { name: "cm" }, data: { a: "b" } })).finish();
  // Field 15 (length-delimited, "zz") and field 16 (varint 7): unknown to ConfigMap.
  const unknown = Uint8Array.of(0x7a, 0x02, 0x7a, 0x7a, 0x80, 0x01, 0x07);
  const body = wrap("v1", "ConfigMap", Uint8Array.from([...known, ...unknown]));
  assert.deepEqual(decodeBody(body), { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "cm" }, data: { a: "b" } });
});

test("a kind without a definition is 415, bytes without the envelope prefix or that do not decode are 400", () => {
  const codeOf = (fn: () => unknown): number | undefined => {
    try {
      fn();
    } catch (error) {
      if (error instanceof ApiError) return error.code;
      throw error;
    }
    return undefined;
  };
  assert.equal(codeOf(() => decodeBody(wrap("example.com/v1", "Widget", new Uint8Array()))), 415);
  assert.equal(codeOf(() => decodeBody(wrap("v1", "PodSpec", new Uint8Array()))), 415, "only top-level kinds");
  assert.equal(codeOf(() => decodeBody(Buffer.from('{"kind":"ConfigMap"}'))), 400);
  assert.equal(codeOf(() => decodeBody(wrap("v1", "ConfigMap", Uint8Array.of(0x0a, 0x7f, 0x01)))), 400, "a truncated field");
});
