import assert from "node:assert/strict";
import { test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { waitForObject } from "../../test/support/cluster-waits.ts";
import type { Cluster } from "../contract.ts";
import { SimCluster } from "../api/sim-cluster.ts";
import { startWebhook } from "../testing/webhook.ts";
import { endpointsController } from "./endpoints.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const POD = { apiVersion: "v1", kind: "Pod" };
const ENDPOINTS = { apiVersion: "v1", kind: "Endpoints" };
const SLICE = { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice" };

/** A pod bound to `n`, running with `ip`, Ready or not. */
async function runningPod(cluster: SimCluster, name: string, ip: string, ready: boolean): Promise<void> {
  await cluster.create({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default", labels: { app: "web" } }, spec: { nodeName: "n", containers: [{ name: "c", image: "i" }] } } as KubeObject);
  await setReady(cluster, name, ready, ip);
}

async function setReady(cluster: SimCluster, name: string, ready: boolean, ip?: string): Promise<void> {
  const status = ready ? "True" : "False";
  await cluster.patch(POD, "default", name, { status: { phase: "Running", ...(ip ? { podIP: ip } : {}), conditions: [{ type: "Ready", status }, { type: "ContainersReady", status }] } }, "merge", { subresource: "status" });
}

function service(publishNotReadyAddresses = false): KubeObject {
  return { apiVersion: "v1", kind: "Service", metadata: { name: "web", namespace: "default" }, spec: { selector: { app: "web" }, ports: [{ port: 80 }], ...(publishNotReadyAddresses ? { publishNotReadyAddresses } : {}) } } as KubeObject;
}

/** A Service's EndpointSlice: its name is generated (`web-xxxxx`), found by the service-name label. */
const sliceOf = async (cluster: Pick<Cluster, "list">, service: string): Promise<unknown> => (await cluster.list(SLICE, { namespace: "default", labelSelector: `kubernetes.io/service-name=${service}` })).items[0];
const addresses = (e: Obj | undefined, field: string): string[] => ((e?.subsets?.[0]?.[field] ?? []) as Obj[]).map((a) => String(a.targetRef.name));
const conditions = (s: Obj | undefined): string[] => ((s?.endpoints ?? []) as Obj[]).map((e) => `${e.targetRef.name} ready=${e.conditions.ready} serving=${e.conditions.serving} terminating=${e.conditions.terminating}`);

test("not Ready pods are notReadyAddresses and ready=false; pods being deleted leave Endpoints but stay in slices as terminating", async () => {
  const cluster = new SimCluster();
  const controller = endpointsController();
  controller.start(cluster);
  try {
    await runningPod(cluster, "a", "10.244.0.1", true);
    await runningPod(cluster, "b", "10.244.0.2", false);
    await runningPod(cluster, "c", "10.244.0.3", true);
    await cluster.create(service());
    await cluster.delete(POD, "default", "c", { gracePeriodSeconds: 30 });
    const endpoints = (await waitForObject(cluster, ENDPOINTS, "default", "web", (e) => addresses(e, "addresses").length + addresses(e, "notReadyAddresses").length === 2)) as Obj;
    assert.deepEqual([addresses(endpoints, "addresses"), addresses(endpoints, "notReadyAddresses")], [["a"], ["b"]]);
    const slice = (await sliceOf(cluster, "web")) as Obj;
    assert.deepEqual(conditions(slice), ["a ready=true serving=true terminating=false", "b ready=false serving=false terminating=false", "c ready=false serving=true terminating=true"]);
  } finally {
    await controller.stop();
  }
});

test("publishNotReadyAddresses: every pod an address, ready in slices, terminating ones too", async () => {
  const cluster = new SimCluster();
  const controller = endpointsController();
  controller.start(cluster);
  try {
    await runningPod(cluster, "a", "10.244.0.1", false);
    await runningPod(cluster, "b", "10.244.0.2", true);
    await cluster.delete(POD, "default", "b", { gracePeriodSeconds: 30 });
    await cluster.create(service(true));
    const endpoints = (await waitForObject(cluster, ENDPOINTS, "default", "web", (e) => addresses(e, "addresses").length === 2)) as Obj;
    assert.deepEqual(addresses(endpoints, "notReadyAddresses"), []);
    assert.deepEqual(conditions((await sliceOf(cluster, "web")) as Obj), ["a ready=true serving=false terminating=false", "b ready=true serving=true terminating=true"]);
  } finally {
    await controller.stop();
  }
});

test("the controller writes through admission: a mutating webhook's patches on its Endpoints and EndpointSlice UPDATEs are stored", async () => {
  // As an edge-autonomy webhook does: not-ready addresses made ready again.
  const webhook = await startWebhook((request) => {
    const object = request.object as Obj;
    if (request.operation !== "UPDATE") return undefined;
    if (object.kind === "Endpoints") {
      const subset = object.subsets?.[0] ?? {};
      if (!subset.notReadyAddresses) return undefined;
      return [
        { op: "add", path: "/subsets/0/addresses", value: [...(subset.addresses ?? []), ...subset.notReadyAddresses] },
        { op: "remove", path: "/subsets/0/notReadyAddresses" },
        { op: "add", path: "/metadata/annotations", value: { "example.com/kept-ready": "true" } },
      ];
    }
    return ((object.endpoints ?? []) as Obj[]).map((_e, i) => ({ op: "replace", path: `/endpoints/${i}/conditions/ready`, value: true }));
  });
  const cluster = new SimCluster();
  const controller = endpointsController();
  try {
    await cluster.create(webhook.configuration("keep-ready", "", ["endpoints"], ["CREATE", "UPDATE"]));
    await cluster.create({ ...webhook.configuration("keep-ready-slices", "discovery.k8s.io", ["endpointslices"], ["CREATE", "UPDATE"]), metadata: { name: "keep-ready-slices" } } as KubeObject);
    controller.start(cluster);
    await runningPod(cluster, "a", "10.244.0.1", true);
    await cluster.create(service());
    await waitForObject(cluster, ENDPOINTS, "default", "web", (e) => addresses(e, "addresses").length === 1);
    await setReady(cluster, "a", false);
    const endpoints = (await waitForObject(cluster, ENDPOINTS, "default", "web", (e) => Boolean(e.metadata.annotations?.["example.com/kept-ready"]))) as Obj;
    assert.deepEqual([addresses(endpoints, "addresses"), addresses(endpoints, "notReadyAddresses")], [["a"], []], "stored as the webhook patched it");
    const slice = await waitFor("the webhook's EndpointSlice", async () => (await sliceOf(cluster, "web")) as Obj | undefined, (s): s is Obj => conditions(s)[0] === "a ready=true serving=false terminating=false");
    assert.equal(slice.endpoints.length, 1);
    const kinds = webhook.requests.map((r) => `${r.operation} ${(r.kind as Obj).kind}`);
    assert.ok(kinds.includes("CREATE Endpoints") && kinds.includes("UPDATE Endpoints") && kinds.includes("UPDATE EndpointSlice"), kinds.join(", "));
  } finally {
    await controller.stop();
    await webhook.close();
  }
});
