import assert from "node:assert/strict";
import { test } from "node:test";
import type { AdmissionRequest, AdmissionResponse, KubeObject } from "../../../protocol/index.ts";
import { WebhookSpec } from "../../../protocol/index.ts";
import { forwards } from "../../../protocol/snapshot/admission-gate.ts";
import { DURATION_HINT } from "./duration.ts";
import { nodeWebhook, nodeWebhookSpec } from "./node-webhook.ts";
import { node, type NodeOptions } from "./testing.ts";

const D = "node.openyurt.io/autonomy-duration";

function edge(duration: string | undefined, options: NodeOptions = {}): KubeObject {
  return node("edge-1", { ...options, annotations: { ...options.annotations, ...(duration === undefined ? {} : { [D]: duration }) } });
}

function review(operation: "CREATE" | "UPDATE", object: KubeObject, oldObject?: KubeObject): AdmissionResponse {
  const request: AdmissionRequest = {
    uid: "req-1",
    kind: { group: "", version: "v1", kind: "Node" },
    resource: { group: "", version: "v1", resource: "nodes" },
    operation,
    object,
    ...(oldObject ? { oldObject } : {}),
  };
  return nodeWebhook.review(request, {}, Date.parse("2026-11-23T12:00:00Z"));
}

test("declared: validating, nodes CREATE and UPDATE, failurePolicy Fail, edge nodes only", () => {
  const spec = WebhookSpec.parse(nodeWebhookSpec);
  assert.equal(spec.name, "autonomy-nodes");
  assert.equal(spec.type, "validating");
  assert.equal(spec.failurePolicy, "Fail");
  assert.deepEqual(spec.rules, [{ operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"] }]);
  assert.deepEqual(spec.objectSelector, { matchLabels: { "openyurt.io/is-edge-worker": "true" } });
});

test("a value that is not a duration is refused at CREATE and UPDATE, naming the annotation and what is valid", () => {
  for (const response of [review("CREATE", edge("10 minutes")), review("UPDATE", edge("10 minutes"), edge(undefined)), review("UPDATE", edge("10d"), edge("10m"))]) {
    assert.equal(response.allowed, false);
    assert.equal(response.status?.code, 400);
    assert.ok(response.status?.message?.includes(D), response.status?.message ?? "");
    assert.ok(response.status?.message?.includes(DURATION_HINT), response.status?.message ?? "");
  }
  assert.equal(review("CREATE", edge("10m")).allowed, true);
  assert.equal(review("CREATE", edge("500ms")).allowed, true);
  assert.equal(review("CREATE", edge(undefined)).allowed, true);
});

test("a duration Go refuses as out of range (issue 28) is refused, naming the annotation: no tolerationSeconds past int64 gets in", () => {
  for (const value of ["9999999h", "99999999999999999999h", "2562048h", "9223372037s"]) {
    const response = review("UPDATE", edge(value), edge("10m"));
    assert.equal(response.allowed, false, value);
    assert.equal(response.status?.code, 400, value);
    assert.ok(response.status?.message?.startsWith(`${D}: `), response.status?.message ?? "");
    assert.match(response.status?.message ?? "", /out of range/, value);
  }
  assert.equal(review("CREATE", edge("2562047h47m16.854775807s")).allowed, true, "Go's largest duration is a duration");
});

test("a bad value from before stays: an update that does not change it passes; one that replaces it with another bad one does not", () => {
  const old = edge("10 minutes");
  const relabelled = edge("10 minutes", { labels: { team: "a" } });
  assert.deepEqual(review("UPDATE", relabelled, old), { uid: "req-1", allowed: true });
  assert.equal(review("UPDATE", edge("20 minutes"), old).allowed, false);
  assert.equal(review("UPDATE", edge("20m"), old).allowed, true, "fixing it is allowed");
  assert.equal(review("UPDATE", edge(undefined), old).allowed, true, "removing it is allowed");
});

test("while the cache failed, the duration may not be added or changed, and the refusal says why", () => {
  const failing = (duration: string | undefined): KubeObject => edge(duration, { autonomy: "Unknown" });
  for (const response of [review("UPDATE", edge("10m"), failing(undefined)), review("UPDATE", edge("20m"), failing("10m"))]) {
    assert.equal(response.allowed, false);
    assert.equal(response.status?.code, 403);
    const message = response.status?.message ?? "";
    assert.ok(message.includes(D) && message.includes("cache failed") && message.includes("failed keys: pods/default/a"), message);
  }
  assert.equal(review("UPDATE", edge(undefined), failing("10m")).allowed, true, "removing it is allowed");
  assert.equal(review("UPDATE", edge("10m", { labels: { team: "a" } }), failing("10m")).allowed, true, "an unchanged value passes");
  assert.equal(review("UPDATE", edge("10m"), edge(undefined, { autonomy: "True" })).allowed, true);
  assert.equal(review("UPDATE", edge("10m", { autonomy: "Unknown" }), edge(undefined, { autonomy: "True" })).allowed, true, "the old object's status is the one read");
});

test("node-lifecycle's own writes are never reviewed: its users are exempt, so a taint lands while the Worker is away (issue 28, finding 7a)", () => {
  const spec = WebhookSpec.parse(nodeWebhookSpec);
  assert.deepEqual(spec.exemptUsers, ["system:serviceaccount:kube-system:node-controller", "system:kube-controller-manager"]);
  const taint = (username: string): AdmissionRequest => ({
    uid: "req-2",
    kind: { group: "", version: "v1", kind: "Node" },
    resource: { group: "", version: "v1", resource: "nodes" },
    operation: "UPDATE",
    object: { ...edge("10m"), spec: { taints: [{ key: "node.kubernetes.io/unreachable", effect: "NoExecute" }] } },
    oldObject: edge("10m"),
    userInfo: { username },
  });
  assert.equal(forwards(spec, taint("system:serviceaccount:kube-system:node-controller"), () => undefined), false);
  assert.equal(forwards(spec, taint("system:node:edge-1"), () => undefined), true, "the kubelet and everyone else are still reviewed");
});
