/**
 * Fidelity: kubectl's imperative commands against the sim. Their generators send
 * protobuf bodies (Content-Type application/vnd.kubernetes.protobuf) for built-in kinds;
 * `run` and `expose` send JSON, `scale` patches the scale subresource, `rollout restart`
 * sends a strategic merge patch. Each test checks what the cluster holds afterwards.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { decodeBody } from "../../sim/http/protobuf/decode.ts";
import { encodeBody } from "../../sim/http/protobuf/encode.ts";
import { PROTOBUF } from "../../sim/http/protobuf/negotiate.ts";
import { startSim, type RunningSim } from "../../sim/index.ts";
import { KUBECTL_SKIP, kubectlFor, type Kubectl } from "./kubectl.ts";

const skip = KUBECTL_SKIP;

let sim: RunningSim;
let dir: string;
let kubectl: Kubectl;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "edgeloop-imperative-"));
  sim = await startSim({ port: 0, kubeconfigPath: join(dir, "kubeconfig"), nodes: 1 });
  kubectl = kubectlFor(join(dir, "kubeconfig"));
});

after(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Obj = Record<string, unknown>;

async function getJson(args: readonly string[]): Promise<Obj> {
  return JSON.parse(await kubectl(["get", ...args, "-o", "json"])) as Obj;
}

/** A value at a dotted path of a JSON object (tests only: no escaping). */
function at(object: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((value, key) => (value !== null && typeof value === "object" ? (value as Obj)[key] : undefined), object);
}

test("create namespace, configmap and secret generic", { skip }, async () => {
  assert.match(await kubectl(["create", "namespace", "imperative"]), /namespace\/imperative created/);
  assert.equal(at(await getJson(["namespace", "imperative"]), "status.phase"), "Active");

  await kubectl(["create", "configmap", "settings", "-n", "imperative", "--from-literal=mode=edge", "--from-literal=level=3"]);
  const configMap = await getJson(["configmap", "settings", "-n", "imperative"]);
  assert.deepEqual(configMap.data, { mode: "edge", level: "3" });

  await kubectl(["create", "secret", "generic", "creds", "-n", "imperative", "--from-literal=user=admin", "--from-literal=token=s3cr3t"]);
  const secret = await getJson(["secret", "creds", "-n", "imperative"]);
  assert.deepEqual(secret.data, { user: Buffer.from("admin").toString("base64"), token: Buffer.from("s3cr3t").toString("base64") });
  assert.equal(secret.type, "Opaque");
});

test("create deployment, then scale, rollout restart and expose it", { skip }, async () => {
  await kubectl(["create", "deployment", "web", "--image=nginx:1.27", "--replicas=2", "--port=80"]);
  const deployment = await getJson(["deployment", "web"]);
  assert.equal(at(deployment, "spec.replicas"), 2);
  assert.deepEqual(at(deployment, "metadata.labels"), { app: "web" });
  assert.deepEqual(at(deployment, "spec.selector.matchLabels"), { app: "web" });
  assert.equal(at(deployment, "spec.template.spec.containers.0.name"), "nginx");
  assert.equal(at(deployment, "spec.template.spec.containers.0.image"), "nginx:1.27");
  assert.deepEqual(at(deployment, "spec.template.spec.containers.0.ports"), [{ containerPort: 80, protocol: "TCP" }]);
  await kubectl(["rollout", "status", "deployment/web", "--timeout=30s"]);

  assert.match(await kubectl(["scale", "deployment", "web", "--replicas=3"]), /deployment.apps\/web scaled/);
  assert.equal(at(await getJson(["deployment", "web"]), "spec.replicas"), 3);
  await kubectl(["rollout", "status", "deployment/web", "--timeout=30s"]);
  assert.equal((await kubectl(["get", "pods", "-l", "app=web", "-o", "name"])).trim().split("\n").length, 3);

  assert.match(await kubectl(["rollout", "restart", "deployment", "web"]), /deployment.apps\/web restarted/);
  const restarted = await getJson(["deployment", "web"]);
  const annotations = at(restarted, "spec.template.metadata.annotations") as Obj | undefined;
  assert.match(String(annotations?.["kubectl.kubernetes.io/restartedAt"]), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
  assert.equal(at(restarted, "metadata.generation"), 3, "create, scale, restart");
  await kubectl(["rollout", "status", "deployment/web", "--timeout=30s"]);

  assert.match(await kubectl(["expose", "deployment", "web", "--port=8080", "--target-port=80", "--name=web-svc"]), /service\/web-svc exposed/);
  const service = await getJson(["service", "web-svc"]);
  assert.deepEqual(at(service, "spec.ports"), [{ port: 8080, protocol: "TCP", targetPort: 80 }]);
  assert.deepEqual(at(service, "spec.selector"), { app: "web" });
  assert.equal(at(service, "spec.type"), "ClusterIP");
});

test("create deployment --replicas=0 keeps zero replicas; --dry-run=server stores nothing", { skip }, async () => {
  await kubectl(["create", "deployment", "idle", "--image=busybox:1.36", "--replicas=0", "--", "sleep", "3600"]);
  const idle = await getJson(["deployment", "idle"]);
  assert.equal(at(idle, "spec.replicas"), 0);
  assert.deepEqual(at(idle, "spec.template.spec.containers.0.command"), ["sleep", "3600"]);

  assert.match(await kubectl(["create", "deployment", "ghost", "--image=nginx", "--dry-run=server"]), /created \(server dry run\)/);
  await assert.rejects(kubectl(["get", "deployment", "ghost"]), /NotFound|not found/);
});

test("create service clusterip and nodeport", { skip }, async () => {
  await kubectl(["create", "service", "clusterip", "backend", "--tcp=80:8080"]);
  const backend = await getJson(["service", "backend"]);
  assert.deepEqual(at(backend, "spec.ports"), [{ name: "80-8080", port: 80, protocol: "TCP", targetPort: 8080 }]);
  assert.deepEqual(at(backend, "spec.selector"), { app: "backend" });
  assert.match(String(at(backend, "spec.clusterIP")), /^\d+\.\d+\.\d+\.\d+$/);

  await kubectl(["create", "service", "nodeport", "front", "--tcp=8080:http", "--node-port=30080"]);
  assert.deepEqual(at(await getJson(["service", "front"]), "spec.ports"), [{ name: "8080-http", nodePort: 30080, port: 8080, protocol: "TCP", targetPort: "http" }]);
});

test("run a pod with labels, a port and env", { skip }, async () => {
  assert.match(await kubectl(["run", "solo", "--image=busybox:1.36", "--labels=app=solo,tier=edge", "--port=9000", "--env=MODE=edge", "--", "sleep", "3600"]), /pod\/solo created/);
  const pod = await getJson(["pod", "solo"]);
  assert.deepEqual(at(pod, "metadata.labels"), { app: "solo", tier: "edge" });
  const container = at(pod, "spec.containers.0") as Obj | undefined;
  assert.equal(container?.image, "busybox:1.36");
  assert.deepEqual(container?.args, ["sleep", "3600"]);
  assert.deepEqual(container?.env, [{ name: "MODE", value: "edge" }]);
  assert.deepEqual(container?.ports, [{ containerPort: 9000, protocol: "TCP" }]);
  await kubectl(["wait", "--for=condition=Ready", "pod/solo", "--timeout=30s"]);
});

test("create serviceaccount, role, clusterrole, rolebinding and clusterrolebinding", { skip }, async () => {
  await kubectl(["create", "serviceaccount", "robot"]);
  assert.equal(at(await getJson(["serviceaccount", "robot"]), "metadata.name"), "robot");
  await kubectl(["create", "role", "reader", "--verb=get,list", "--resource=pods,configmaps"]);
  assert.deepEqual(at(await getJson(["role", "reader"]), "rules"), [{ apiGroups: [""], resources: ["pods", "configmaps"], verbs: ["get", "list"] }]);
  await kubectl(["create", "clusterrole", "viewer", "--verb=get", "--non-resource-url=/healthz"]);
  assert.deepEqual(at(await getJson(["clusterrole", "viewer"]), "rules"), [{ nonResourceURLs: ["/healthz"], verbs: ["get"] }]);
  await kubectl(["create", "rolebinding", "read-robot", "--role=reader", "--serviceaccount=default:robot"]);
  const binding = await getJson(["rolebinding", "read-robot"]);
  assert.deepEqual(binding.subjects, [{ kind: "ServiceAccount", name: "robot", namespace: "default" }]);
  assert.deepEqual(binding.roleRef, { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" });
  await kubectl(["create", "clusterrolebinding", "view-all", "--clusterrole=viewer", "--group=devs"]);
  assert.deepEqual(at(await getJson(["clusterrolebinding", "view-all"]), "subjects"), [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "devs" }]);
});

test("create job", { skip }, async () => {
  assert.ok(sim.cluster.registry.byPath("batch", "v1", "jobs"), "the sim serves batch/v1 Jobs (kubectl create job needs them)");
  assert.match(await kubectl(["create", "job", "once", "--image=busybox:1.36", "--", "echo", "hi"]), /job.batch\/once created/);
  const job = await getJson(["job", "once"]);
  const container = at(job, "spec.template.spec.containers.0") as Obj | undefined;
  assert.deepEqual(container?.command, ["echo", "hi"]);
  assert.equal(at(job, "spec.template.spec.restartPolicy"), "Never");
});

test("a protobuf-only client reads built-in kinds in protobuf and gets 406 where the sim cannot write protobuf", { skip }, async () => {
  await kubectl(["create", "configmap", "wire", "--from-literal=k=v"]);
  const response = await fetch(`${sim.url}/api/v1/namespaces/default/configmaps/wire`, { headers: { accept: PROTOBUF } });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), PROTOBUF);
  const configMap = decodeBody(new Uint8Array(await response.arrayBuffer()));
  assert.deepEqual(configMap.data, { k: "v" });
  assert.equal(at(configMap, "metadata.name"), "wire");

  const missing = await fetch(`${sim.url}/api/v1/namespaces/default/configmaps/nope`, { headers: { accept: PROTOBUF } });
  assert.equal(missing.status, 404);
  assert.deepEqual(decodeBody(new Uint8Array(await missing.arrayBuffer())), {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    message: 'configmaps "nope" not found',
    reason: "NotFound",
    details: { name: "nope", kind: "configmaps" },
    code: 404,
  });

  const watch = await fetch(`${sim.url}/api/v1/namespaces/default/configmaps?watch=1`, { headers: { accept: PROTOBUF } });
  assert.equal(watch.status, 406);
  assert.match(await watch.text(), /only the following media types are accepted: application\/json, application\/yaml"/);
});

test("a protobuf client scales with a PUT of the Scale (0 replicas is left out on the wire) and deletes with protobuf DeleteOptions", { skip }, async () => {
  await kubectl(["create", "deployment", "wired", "--image=nginx:1.27", "--replicas=2"]);
  await kubectl(["rollout", "status", "deployment/wired", "--timeout=30s"]);
  const scale = encodeBody({ kind: "Scale", apiVersion: "autoscaling/v1", metadata: { name: "wired", namespace: "default" }, spec: { replicas: 0 } });
  assert.ok(scale);
  const put = await fetch(`${sim.url}/apis/apps/v1/namespaces/default/deployments/wired/scale`, { method: "PUT", body: scale, headers: { "content-type": PROTOBUF, accept: `${PROTOBUF}, application/json` } });
  assert.equal(put.status, 200);
  assert.equal(put.headers.get("content-type"), PROTOBUF);
  assert.equal(decodeBody(new Uint8Array(await put.arrayBuffer())).kind, "Scale");
  assert.equal(at(await getJson(["deployment", "wired"]), "spec.replicas"), 0);

  const options = encodeBody({ kind: "DeleteOptions", apiVersion: "apps/v1", propagationPolicy: "Orphan" });
  assert.ok(options);
  const deleted = await fetch(`${sim.url}/apis/apps/v1/namespaces/default/deployments/wired`, { method: "DELETE", body: options, headers: { "content-type": PROTOBUF } });
  assert.equal(deleted.status, 200);
  await assert.rejects(kubectl(["get", "deployment", "wired"]), /not found/);
  const replicaSets = (await getJson(["replicasets", "-l", "app=wired"])).items as Obj[];
  assert.equal(replicaSets.length, 1, "Orphan: the ReplicaSet stays");
  assert.equal(at(replicaSets[0], "metadata.ownerReferences"), undefined, "Orphan: its ownerReference is removed");
});
