import assert from "node:assert/strict";
import { test } from "node:test";
import type { AdmissionRequest } from "../../../protocol/index.ts";
import { WebhookSpec } from "../../../protocol/index.ts";
import controller from "./controller.ts";
import { defaultsWebhook, validateWebhook } from "./webhooks.ts";
import { admissionRequest, patchOf } from "../../kit/testing/index.ts";

function admission(spec: Record<string, unknown> | undefined, operation: "CREATE" | "UPDATE" = "CREATE"): AdmissionRequest {
  const object = { apiVersion: "nervex.sensetime.com/v1alpha1", kind: "NerveXJob", metadata: { name: "j", namespace: "default" }, ...(spec ? { spec } : {}) };
  return admissionRequest({ group: "nervex.sensetime.com", version: "v1alpha1", kind: "NerveXJob", resource: "nervexjobs", operation, object });
}

const coordinator = { template: { spec: { containers: [{ name: "nervex-container" }] } } };

test("both webhooks are declared on CREATE and UPDATE of nervexjobs, failurePolicy Fail", () => {
  assert.deepEqual(controller.webhooks?.map((w) => [w.spec.name, w.spec.type]), [["nervexjob-defaults", "mutating"], ["nervexjob-validate", "validating"]]);
  for (const webhook of controller.webhooks ?? []) {
    const spec = WebhookSpec.parse(webhook.spec);
    assert.equal(spec.failurePolicy, "Fail");
    assert.deepEqual(spec.rules, [{ operations: ["CREATE", "UPDATE"], apiGroups: ["nervex.sensetime.com"], apiVersions: ["v1alpha1"], resources: ["nervexjobs"] }]);
  }
});

for (const operation of ["CREATE", "UPDATE"] as const) {
  test(`${operation}: an absent cleanPodPolicy is defaulted to Running`, () => {
    const response = defaultsWebhook.review(admission({ coordinator }, operation), {}, 0);
    assert.equal(response.allowed, true);
    assert.equal(response.uid, "req-1");
    assert.deepEqual(patchOf(response), [{ op: "add", path: "/spec/cleanPodPolicy", value: "Running" }]);
  });

  test(`${operation}: an empty cleanPodPolicy is defaulted to Running; a set one is kept`, () => {
    assert.deepEqual(patchOf(defaultsWebhook.review(admission({ coordinator, cleanPodPolicy: "" }, operation), {}, 0)), [{ op: "add", path: "/spec/cleanPodPolicy", value: "Running" }]);
    for (const policy of ["None", "ALL", "Running"]) {
      assert.deepEqual(defaultsWebhook.review(admission({ coordinator, cleanPodPolicy: policy }, operation), {}, 0), { uid: "req-1", allowed: true });
    }
  });

  test(`${operation}: an unsupported cleanPodPolicy is refused naming the value and the allowed ones; the allowed are admitted`, () => {
    const response = validateWebhook.review(admission({ coordinator, cleanPodPolicy: "Sometimes" }, operation), {}, 0);
    assert.equal(response.allowed, false);
    assert.equal(response.status?.code, 400);
    assert.equal(response.status?.message, 'spec.cleanPodPolicy: Unsupported value: "Sometimes": supported values: "ALL", "None", "Running"');
    for (const policy of ["None", "ALL", "Running"]) {
      assert.deepEqual(validateWebhook.review(admission({ coordinator, cleanPodPolicy: policy }, operation), {}, 0), { uid: "req-1", allowed: true });
    }
    // Case matters, as upstream's: `all` is not `ALL`.
    assert.equal(validateWebhook.review(admission({ coordinator, cleanPodPolicy: "all" }, operation), {}, 0).allowed, false);
  });
}

test("a job without a spec is left to the schema: no patch, no refusal", () => {
  assert.deepEqual(defaultsWebhook.review(admission(undefined), {}, 0), { uid: "req-1", allowed: true });
  assert.deepEqual(validateWebhook.review(admission(undefined), {}, 0), { uid: "req-1", allowed: true });
});

test("a non-string cleanPodPolicy is refused with its JSON in the message", () => {
  const response = validateWebhook.review(admission({ coordinator, cleanPodPolicy: 3 }), {}, 0);
  assert.equal(response.status?.message, 'spec.cleanPodPolicy: Unsupported value: 3: supported values: "ALL", "None", "Running"');
});
