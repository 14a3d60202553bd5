/**
 * Fidelity: the real kubectl against the sim. Each test drives kubectl as a user would
 * and checks what kubectl printed or what the cluster holds.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { startSim, type RunningSim } from "../../sim/index.ts";
import { waitForGone } from "../support/cluster-waits.ts";
import { KUBECTL_AVAILABLE, KUBECTL_SKIP, kubectlFor, type Kubectl } from "./kubectl.ts";

// The upstream Sedna manifests, byte-identical (their sources: functions/controllers/sedna/fixtures/SOURCES.md).
const FIXTURES = join(import.meta.dirname, "../../functions/controllers/sedna/fixtures");
const skip = KUBECTL_SKIP;

test("kubectl is on PATH (in CI its absence fails here, by name, rather than skipping the kubectl tests)", { skip }, () => {
  assert.ok(KUBECTL_AVAILABLE, "kubectl is not on PATH: the kubectl tests need it; install kubectl (Debian package kubectl or the Kubernetes release's binary)");
});

let sim: RunningSim;
let dir: string;
let kubectl: Kubectl;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "edgeloop-kubectl-"));
  sim = await startSim({ port: 0, kubeconfigPath: join(dir, "kubeconfig"), nodes: 2 });
  kubectl = kubectlFor(join(dir, "kubeconfig"));
});

after(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

const CM = { apiVersion: "v1", kind: "ConfigMap" };

test("apply an upstream CRD and a custom resource; get, describe, label, annotate, patch, re-apply", { skip }, async () => {
  assert.match(await kubectl(["apply", "-f", join(FIXTURES, "sedna.io_models.yaml")]), /customresourcedefinition.apiextensions.k8s.io\/models.sedna.io created/);
  await waitFor("models to be served (kubectl api-resources)", () => kubectl(["api-resources", "--api-group=sedna.io"]), (served) => served.includes("models"));
  assert.match(await kubectl(["apply", "-f", join(FIXTURES, "model_v1alpha1.yaml")]), /created/);
  const name = (await kubectl(["get", "models", "-o", "jsonpath={.items[0].metadata.name}"])).trim();
  assert.ok(name.length > 0);
  assert.match(await kubectl(["get", "model", name]), new RegExp(`^NAME\\s+AGE\\n${name}\\s+\\d+s`));
  assert.match(await kubectl(["describe", "model", name]), /Kind:\s+Model/);
  await kubectl(["label", "model", name, "tier=gold"]);
  await kubectl(["annotate", "model", name, "owner=ml-team"]);
  await kubectl(["patch", "model", name, "--type=merge", "-p", '{"spec":{"format":"onnx"}}']);
  const patched = JSON.parse(await kubectl(["get", "model", name, "-o", "json"])) as { metadata: { labels: Record<string, string>; annotations: Record<string, string>; generation: number }; spec: { format: string } };
  assert.equal(patched.metadata.labels.tier, "gold");
  assert.equal(patched.metadata.annotations.owner, "ml-team");
  assert.equal(patched.spec.format, "onnx");
  assert.equal(patched.metadata.generation, 2, "a spec change bumps generation; labels do not");
  assert.match(await kubectl(["get", "models", "-l", "tier=gold", "-o", "name"]), new RegExp(`model.sedna.io/${name}`));
  assert.match(await kubectl(["apply", "-f", join(FIXTURES, "model_v1alpha1.yaml")]), /configured/);
  assert.match(await kubectl(["apply", "-f", join(FIXTURES, "model_v1alpha1.yaml")]), /unchanged/);
});

test("a CRD with a status subresource and printer columns: patch --subresource=status, columns in get", { skip }, async () => {
  const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.edgeloop.dev}
spec:
  group: example.edgeloop.dev
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wg]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Phase, type: string, jsonPath: '.status.conditions[?(@.status=="True")].type'}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer, minimum: 1}}}
          status: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;
  await kubectl(["apply", "-f", "-"], crd);
  await waitFor("widgets to be served (kubectl api-resources)", () => kubectl(["api-resources", "--api-group=example.edgeloop.dev"]), (served) => served.includes("widgets"));
  await kubectl(["apply", "-f", "-"], "apiVersion: example.edgeloop.dev/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 3}\n");
  await assert.rejects(kubectl(["apply", "-f", "-"], "apiVersion: example.edgeloop.dev/v1\nkind: Widget\nmetadata: {name: w2}\nspec: {size: 0}\n"), /spec.size/, "the schema's minimum is enforced");
  await kubectl(["patch", "wg", "w1", "--subresource=status", "--type=merge", "-p", '{"status":{"conditions":[{"type":"Ready","status":"True"}]}}']);
  await kubectl(["patch", "wg", "w1", "--type=merge", "-p", '{"status":{"conditions":[]}}']);
  const table = await kubectl(["get", "wg", "w1"]);
  assert.match(table, /^NAME\s+SIZE\s+PHASE\s+AGE\nw1\s+3\s+Ready\s+/, "status kept: the main resource ignores status changes");
});

test("delete --cascade: background, foreground and orphan", { skip }, async () => {
  const owner = JSON.parse(await kubectl(["create", "-o", "json", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "owner" } }))) as { metadata: { uid: string } };
  const child = (name: string): string =>
    JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true }] } });
  await kubectl(["create", "-f", "-"], child("child-a"));
  await kubectl(["delete", "configmap", "owner", "--cascade=orphan"]);
  const orphan = await sim.cluster.find(CM, "default", "child-a");
  assert.ok(orphan, "orphan keeps the child");
  assert.equal(orphan.metadata.ownerReferences?.length ?? 0, 0, "orphan removes the ownerReference");

  const owner2 = JSON.parse(await kubectl(["create", "-o", "json", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "owner" } }))) as { metadata: { uid: string } };
  owner.metadata.uid = owner2.metadata.uid;
  await kubectl(["create", "-f", "-"], child("child-b"));
  await kubectl(["delete", "configmap", "owner", "--cascade=foreground"]);
  assert.equal(await sim.cluster.find(CM, "default", "child-b"), undefined, "foreground: the child is gone before the owner");

  const owner3 = JSON.parse(await kubectl(["create", "-o", "json", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "owner" } }))) as { metadata: { uid: string } };
  owner.metadata.uid = owner3.metadata.uid;
  await kubectl(["create", "-f", "-"], child("child-c"));
  await kubectl(["delete", "configmap", "owner", "--cascade=background"]);
  await waitForGone(sim.cluster, CM, "default", "child-c");
});

test("get -w --output-watch-events shows ADDED, MODIFIED, DELETED", { skip }, async () => {
  const watcher = kubectl.spawn(["get", "configmaps", "-w", "--output-watch-events", "-l", "watched=yes"]);
  let output = "";
  watcher.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  try {
    await kubectl(["create", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "w", labels: { watched: "yes" } } }));
    await waitFor("ADDED (kubectl's output)", () => output, (text) => text.includes("ADDED"));
    await kubectl(["annotate", "configmap", "w", "x=1"]);
    await kubectl(["delete", "configmap", "w"]);
    await waitFor("DELETED (kubectl's output)", () => output, (text) => text.includes("DELETED"));
    const events = output.trim().split("\n").slice(1).map((l) => l.split(/\s+/).slice(0, 2).join(" "));
    assert.deepEqual(events, ["ADDED w", "MODIFIED w", "DELETED w"]);
  } finally {
    watcher.kill();
  }
});

test("a Deployment's pods appear and become Ready; kubectl rollout status and scale work", { skip }, async () => {
  const deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web" },
    spec: { replicas: 2, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: "web", image: "nginx:1.27" }] } } },
  };
  await kubectl(["apply", "-f", "-"], JSON.stringify(deployment));
  await kubectl(["rollout", "status", "deployment/web", "--timeout=30s"]);
  await kubectl(["wait", "--for=condition=Ready", "pod", "-l", "app=web", "--timeout=30s"]);
  assert.equal((await kubectl(["get", "pods", "-l", "app=web", "-o", "name"])).trim().split("\n").length, 2);
  await kubectl(["scale", "deployment/web", "--replicas=3"]);
  await kubectl(["rollout", "status", "deployment/web", "--timeout=30s"]);
  assert.match(await kubectl(["get", "deployment", "web"]), /web\s+3\/3\s+3\s+3/);
  await kubectl(["set", "image", "deployment/web", "web=nginx:1.28"]);
  await kubectl(["rollout", "status", "deployment/web", "--timeout=60s"]);
  const images = await kubectl(["get", "pods", "-l", "app=web", "-o", "jsonpath={.items[*].spec.containers[0].image}"]);
  await waitFor("old pods to terminate (the pods' images)", () => kubectl(["get", "pods", "-l", "app=web", "-o", "jsonpath={.items[*].spec.containers[0].image}"]), (now) => now.split(" ").every((image) => image === "nginx:1.28"));
  assert.ok(images.includes("nginx:1.28"));
});

test("kubectl errors are Kubernetes errors: NotFound, AlreadyExists, Invalid", { skip }, async () => {
  await assert.rejects(kubectl(["get", "configmap", "nope"]), /NotFound|not found/);
  await kubectl(["create", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dup" } }));
  await assert.rejects(kubectl(["create", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dup" } })), /AlreadyExists|already exists/);
  await assert.rejects(kubectl(["create", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "Bad_Name" } })), /Invalid|invalid/);
  assert.ok(readFileSync(join(dir, "kubeconfig"), "utf8").includes(sim.url));
});

test("kubectl get in chunks (--chunk-size) lists everything once, as tables and as JSON", { skip }, async () => {
  await kubectl(["create", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "chunks" } }));
  for (let i = 0; i < 7; i++) await sim.cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `chunk-${i}`, namespace: "chunks", labels: { chunk: "yes" } } } as KubeObject);
  const table = await kubectl(["get", "configmaps", "-n", "chunks", "-l", "chunk=yes", "--chunk-size=2", "--no-headers", "-o", "custom-columns=NAME:.metadata.name"]);
  assert.deepEqual(table.trim().split("\n"), ["chunk-0", "chunk-1", "chunk-2", "chunk-3", "chunk-4", "chunk-5", "chunk-6"]);
  const json = JSON.parse(await kubectl(["get", "configmaps", "-n", "chunks", "-l", "chunk=yes", "--chunk-size=3", "-o", "json"])) as { items: unknown[] };
  assert.equal(json.items.length, 7);
});
