/**
 * The real kubectl against the sim where users meet the API server's rules: validation
 * errors worded as kube-apiserver words them, unknown fields (kubectl's strict default,
 * `--validate=warn`), the namespace lifecycle, `kubectl explain` for built-in and custom
 * kinds, and `service/kubernetes`.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import { crdYaml, uniqueResources } from "../../functions/kit/crd/generate.ts";
import { loadControllers } from "../../scripts/lib/controllers.ts";
import { startSim, type RunningSim } from "../../sim/index.ts";
import { KUBECTL_SKIP } from "./kubectl.ts";

const skip = KUBECTL_SKIP;

let sim: RunningSim;
let dir: string;
/** What the sim's own controllers wrote that their kinds' schemas do not declare (there should be nothing). */
const inProcessWarnings: string[] = [];

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** kubectl with the sim's kubeconfig; resolves whatever the exit code, with both streams. */
function kubectl(args: readonly string[], input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile("kubectl", [...args], { env: { ...process.env, KUBECONFIG: join(dir, "kubeconfig") }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** kubectl that must succeed; its stdout. */
async function ok(args: readonly string[], input?: string): Promise<string> {
  const run = await kubectl(args, input);
  assert.equal(run.code, 0, `kubectl ${args.join(" ")}: ${run.stderr}`);
  return run.stdout;
}

/** kubectl that must fail; its stderr. */
async function fails(args: readonly string[], input?: string): Promise<string> {
  const run = await kubectl(args, input);
  assert.notEqual(run.code, 0, `kubectl ${args.join(" ")} should have failed: ${run.stdout}`);
  return run.stderr;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "edgeloop-validation-"));
  sim = await startSim({ port: 0, kubeconfigPath: join(dir, "kubeconfig"), nodes: 2, onWarning: (m) => inProcessWarnings.push(m) });
});

after(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

const SUBDOMAIN_RULE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

test("a bad name, a long label value, a missing image: 422 Invalid worded as kube-apiserver words it", { skip }, async () => {
  assert.equal((await fails(["create", "deployment", "Bad_Name", "--image=nginx"])).trim(), `error: failed to create deployment: Deployment.apps "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${SUBDOMAIN_RULE}`);
  const long = "v".repeat(64);
  assert.equal((await fails(["run", "long", "--image=busybox", `--labels=app=${long}`])).trim(), `The Pod "long" is invalid: metadata.labels: Invalid value: "${long}": must be no more than 63 bytes`);
  const noImage = JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "noimage" },
    spec: { selector: { matchLabels: { app: "x" } }, template: { metadata: { labels: { app: "x" } }, spec: { containers: [{ name: "c" }] } } },
  });
  assert.equal((await fails(["create", "-f", "-"], noImage)).trim(), 'The Deployment "noimage" is invalid: spec.template.spec.containers[0].image: Required value');
  assert.equal((await fails(["create", "namespace", "a.b"])).trim(), 'The Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots');
  const status = (await (await fetch(`${sim.url}/apis/apps/v1/namespaces/default/deployments`, { method: "POST", headers: { "content-type": "application/json" }, body: noImage })).json()) as Record<string, unknown>;
  assert.deepEqual(status, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: 'Deployment.apps "noimage" is invalid: spec.template.spec.containers[0].image: Required value',
    reason: "Invalid",
    details: { name: "noimage", group: "apps", kind: "Deployment", causes: [{ reason: "FieldValueRequired", message: "Required value", field: "spec.template.spec.containers[0].image" }] },
    code: 422,
  });
});

test("unknown fields: refused by kubectl's default (strict), a Warning with --validate=warn or by default on the server, dropped silently with --validate=false", { skip }, async () => {
  const typo = (name: string): string => JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { nodeNmae: "sim-node-1", containers: [{ name: "c", image: "busybox" }] } });
  assert.equal((await fails(["create", "-f", "-"], typo("strict"))).trim(), 'Error from server (BadRequest): error when creating "STDIN": Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.nodeNmae"');
  const warned = await kubectl(["create", "--validate=warn", "-f", "-"], typo("warned"));
  assert.equal(warned.code, 0, warned.stderr);
  assert.equal(warned.stderr.trim(), 'Warning: unknown field "spec.nodeNmae"');
  assert.match(warned.stdout, /pod\/warned created/);
  const ignored = await kubectl(["create", "--validate=false", "-f", "-"], typo("ignored"));
  assert.equal(ignored.stderr, "");
  const pod = JSON.parse(await ok(["get", "pod", "ignored", "-o", "json"])) as { spec: Record<string, unknown> };
  assert.equal(pod.spec.nodeNmae, undefined, "the unknown field is not kept");
  // kubectl patch sends no fieldValidation: the server's default, Warn.
  const patched = await kubectl(["patch", "pod", "warned", "--type=merge", "-p", '{"spec":{"schedulerNaem":"x"}}']);
  assert.equal(patched.stderr.trim(), 'Warning: unknown field "spec.schedulerNaem"');
  // kubectl apply of an existing object patches it, strictly: the 422 names the patch.
  await ok(["apply", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied" }, data: { a: "b" } }));
  const applied = await fails(["apply", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied" }, data: { a: "c" }, dataa: { x: "y" } }));
  assert.match(applied, /^The request is invalid: patch: Invalid value: "map\[data:map\[a:c\] dataa:map\[x:y\] metadata:.*": strict decoding error: unknown field "dataa"\n$/s);
  assert.equal((await fails(["apply", "--server-side", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ssa" }, dataa: {} }))).trim(), 'Error from server (BadRequest): failed to create typed patch object (default/ssa; /v1, Kind=ConfigMap): .dataa: field not declared in schema');
});

test("deleting a namespace: Terminating, creates refused, its pods terminate gracefully, everything goes, then the namespace", { skip }, async () => {
  await ok(["create", "namespace", "demo"]);
  const deployment = JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "demo" },
    // Containers that take their whole 5 s grace period to stop (the kubelet simulator's shutdown annotation).
    spec: { replicas: 2, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" }, annotations: { "sim.edgeloop.dev/shutdown-seconds": "5" } }, spec: { terminationGracePeriodSeconds: 5, containers: [{ name: "web", image: "nginx" }] } } },
  });
  await ok(["create", "-f", "-"], deployment);
  await ok(["-n", "demo", "create", "configmap", "settings", "--from-literal=a=b"]);
  await waitFor("two running pods (their phases)", async () => (await ok(["-n", "demo", "get", "pods", "-o", "jsonpath={.items[*].status.phase}"])).trim(), (phases) => phases === "Running Running", { timeoutMs: 30_000 });

  assert.match(await ok(["delete", "namespace", "demo", "--wait=false"]), /namespace "demo" deleted/);
  const namespace = JSON.parse(await ok(["get", "namespace", "demo", "-o", "json"])) as { metadata: { deletionTimestamp?: string }; spec: { finalizers: string[] }; status: { phase: string } };
  assert.equal(namespace.status.phase, "Terminating");
  assert.ok(namespace.metadata.deletionTimestamp);
  assert.deepEqual(namespace.spec.finalizers, ["kubernetes"]);
  assert.match(await ok(["get", "namespace", "demo"]), /demo\s+Terminating/);
  assert.equal((await fails(["-n", "demo", "create", "configmap", "late"])).trim(), 'error: failed to create configmap: configmaps "late" is forbidden: unable to create new content in namespace demo because it is being terminated');
  // Deleted as a user's delete would: the kubelet stops them within their grace period.
  assert.equal(await ok(["-n", "demo", "get", "pods", "-o", "jsonpath={.items[*].metadata.deletionGracePeriodSeconds}"]), "5 5");
  assert.match(await ok(["-n", "demo", "get", "pods"]), /Terminating/);

  await waitFor("the namespace to be gone (kubectl get namespace demo)", () => kubectl(["get", "namespace", "demo"]), (got) => got.stderr.includes('namespaces "demo" not found'), { timeoutMs: 30_000 });
  for (const kind of ["pods", "replicasets", "deployments", "configmaps"]) assert.equal(await ok(["-n", "demo", "get", kind, "-o", "name"]), "", `no ${kind} left`);
  assert.equal((await fails(["-n", "demo", "create", "configmap", "after"])).trim(), 'error: failed to create configmap: namespaces "demo" not found');
  assert.equal((await fails(["delete", "namespace", "kube-system"])).trim(), 'Error from server (Forbidden): namespaces "kube-system" is forbidden: this namespace may not be deleted');
});

test("kubectl explain: built-in kinds and custom resources, from /openapi/v3", { skip }, async () => {
  const spec = await ok(["explain", "pod.spec"]);
  assert.match(spec, /^KIND:\s+Pod\nVERSION:\s+v1\n\nFIELD: spec <PodSpec>/);
  assert.match(spec, /containers\t<\[\]Container> -required-\n\s+List of containers belonging to the pod\./);
  assert.match(await ok(["explain", "deployment.spec.template.spec.containers.ports"]), /GROUP:\s+apps\nKIND:\s+Deployment[\s\S]*containerPort\t<integer> -required-/);
  assert.match(await ok(["explain", "svc.spec.ports.targetPort"]), /FIELD: targetPort <IntOrString>/);
  assert.match(await ok(["explain", "namespace", "--recursive"]), /finalizers\t<\[\]string>/);

  const crds = crdYaml(uniqueResources((await loadControllers()).flatMap((c) => c.resources ?? [])));
  await ok(["apply", "-f", "-"], crds);
  await waitFor("federatedlearningjobs to be served (kubectl api-resources)", () => ok(["api-resources", "--api-group=sedna.io"]), (served) => served.includes("federatedlearningjobs"));
  const fl = await ok(["explain", "federatedlearningjob.spec"]);
  assert.match(fl, /^GROUP:\s+sedna\.io\nKIND:\s+FederatedLearningJob\nVERSION:\s+v1alpha1\n\nFIELD: spec <Object>/);
  assert.match(fl, /aggregationWorker\t<Object> -required-/);
  assert.match(await ok(["explain", "federatedlearningjob.metadata.labels"]), /FIELD: labels <map\[string\]string>/);
  assert.match(await fails(["explain", "federatedlearningjob.spec.nope"]), /field "nope" does not exist/);
});

test("custom resources: unknown fields refused, warned about or dropped through their CRD's schema, metadata included", { skip }, async () => {
  await ok(["apply", "-f", "-"], crdYaml(uniqueResources((await loadControllers()).flatMap((c) => c.resources ?? []))));
  await waitFor("models to be served (kubectl api-resources)", () => ok(["api-resources", "--api-group=sedna.io"]), (served) => served.includes("models"));
  const model = (name: string): string => JSON.stringify({ apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name, lables: { a: "b" } }, spec: { url: "/model/frozen.pb", format: "ckpt", formatt: "pb" } });
  assert.equal((await fails(["create", "-f", "-"], model("strict"))).trim(), 'Error from server (BadRequest): error when creating "STDIN": Model in version "v1alpha1" cannot be handled as a Model: strict decoding error: unknown field "spec.formatt", unknown field "metadata.lables"');
  const warned = await kubectl(["create", "--validate=warn", "-f", "-"], model("warned"));
  assert.equal(warned.code, 0, warned.stderr);
  assert.deepEqual(warned.stderr.trim().split("\n"), ['Warning: unknown field "spec.formatt"', 'Warning: unknown field "metadata.lables"']);
  const stored = JSON.parse(await ok(["get", "model", "warned", "-o", "json"])) as { metadata: Record<string, unknown>; spec: Record<string, unknown> };
  assert.deepEqual(stored.spec, { url: "/model/frozen.pb", format: "ckpt" });
  assert.equal(stored.metadata.lables, undefined);
});

test("service/kubernetes in default: ClusterIP 10.96.0.1, 443/TCP named https; its endpoints are the sim's address", { skip }, async () => {
  const service = JSON.parse(await ok(["get", "service", "kubernetes", "-o", "json"])) as { spec: { type: string; clusterIP: string; ports: { name: string; port: number; protocol: string; targetPort: number }[] } };
  assert.equal(service.spec.type, "ClusterIP");
  assert.equal(service.spec.clusterIP, "10.96.0.1");
  const port = Number(new URL(sim.url).port);
  assert.deepEqual(service.spec.ports, [{ name: "https", port: 443, protocol: "TCP", targetPort: port }]);
  assert.equal(await ok(["get", "endpoints", "kubernetes", "-o", "jsonpath={.subsets[0].addresses[0].ip}:{.subsets[0].ports[0].port}"]), `127.0.0.1:${port}`);
  assert.equal(await ok(["get", "endpointslices", "-l", "kubernetes.io/service-name=kubernetes", "-o", "jsonpath={.items[0].endpoints[0].addresses[0]}"]), "127.0.0.1");
});

test("the sim's own controllers write only fields their kinds declare", { skip }, () => {
  assert.deepEqual(inProcessWarnings, []);
});
