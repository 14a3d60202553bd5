/**
 * node-lifecycle's writes as a fail-closed Node webhook sees them: as kube-controller-manager's
 * node-controller (not the sim's admin), so a webhook that exempts it (the relay's Node guard
 * while the Worker is unreachable: `exemptUsers`) lets its taints land (issue 28, finding 7a).
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { NODE_LIFECYCLE_USERS } from "../../protocol/kube/controller-users.ts";
import { waitForObject } from "../../test/support/cluster-waits.ts";
import { SimCluster } from "../api/sim-cluster.ts";
import { nodeLifecycle } from "./nodelifecycle.ts";
import { readyCondition } from "./nodes.ts";
import { now } from "./runtime.ts";
import { UNREACHABLE } from "./taints.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const NODE = { apiVersion: "v1", kind: "Node" };

test("a fail-closed Node webhook that refuses all but node-lifecycle's users does not hold back the unreachable taints", async (t) => {
  const users: string[] = [];
  // The relay's answer while the Worker is unreachable: allowed for the exempt users, denied (failurePolicy Fail) for the others.
  const webhook = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      const review = (JSON.parse(body) as { request: { uid: string; userInfo?: { username?: string } } }).request;
      const user = review.userInfo?.username ?? "";
      users.push(user);
      const allowed = NODE_LIFECYCLE_USERS.includes(user);
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: review.uid, allowed, ...(allowed ? {} : { status: { code: 500, message: "edgeloop webhook unavailable: worker unreachable" } }) } }));
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, "127.0.0.1", resolve));
  t.after(() => webhook.close());
  const cluster = new SimCluster();
  await cluster.create({ apiVersion: "v1", kind: "Node", metadata: { name: "n" }, spec: {}, status: { conditions: [readyCondition("True", now())] } } as KubeObject);
  await cluster.create({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: "node-guard" },
    webhooks: [{ name: "nodes.example.com", clientConfig: { url: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/` }, rules: [{ operations: ["UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"] }], failurePolicy: "Fail", sideEffects: "None", admissionReviewVersions: ["v1"] }],
  } as KubeObject);
  const controller = nodeLifecycle({ nodeGraceSeconds: 2, heartbeatSeconds: 1, nodes: [] });
  controller.start(cluster);
  t.after(() => controller.stop());
  const tainted = (await waitForObject(cluster, NODE, undefined, "n", (n: Obj) => ((n.spec?.taints ?? []) as Obj[]).some((taint) => taint.key === UNREACHABLE && taint.effect === "NoExecute"), 8_000)) as Obj;
  assert.ok(tainted);
  assert.ok(users.length > 0 && users.every((user) => user === "system:serviceaccount:kube-system:node-controller"), `the webhook saw ${[...new Set(users)].join(", ")}`);
});
