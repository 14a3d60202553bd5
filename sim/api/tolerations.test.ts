/** Tolerations through the sim's write pipeline: DefaultTolerationSeconds among the admission plugins, and pod update validation. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { apiError } from "../../test/support/api-error.ts";
import { startWebhook } from "../testing/webhook.ts";
import { SimCluster } from "./sim-cluster.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const POD = { apiVersion: "v1", kind: "Pod" };
const UNREACHABLE = "node.kubernetes.io/unreachable";

function pod(name: string, tolerations?: Obj[]): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default" }, spec: { containers: [{ name: "c", image: "busybox" }], ...(tolerations ? { tolerations } : {}) } } as KubeObject;
}

const summary = (p: Obj): string[] => (p.spec.tolerations as Obj[]).map((t) => `${t.key}:${t.effect}:${t.tolerationSeconds ?? "forever"}`);

test("DefaultTolerationSeconds runs on create after Priority and before the mutating webhooks, which see (and may change) its tolerations", async () => {
  const webhook = await startWebhook((request) => {
    const tolerations = ((request.object as Obj).spec.tolerations ?? []) as Obj[];
    const index = tolerations.findIndex((t) => t.key === UNREACHABLE);
    return index < 0 ? undefined : [{ op: "replace", path: `/spec/tolerations/${index}/tolerationSeconds`, value: 20 }];
  });
  try {
    const cluster = new SimCluster();
    await cluster.create(webhook.configuration("tolerations", "", ["pods"], ["CREATE", "UPDATE"]));
    const created = (await cluster.create(pod("p"))) as Obj;
    const seen = webhook.requests[0]?.object as Obj;
    assert.equal(seen.spec.priority, 0, "Priority ran before");
    assert.deepEqual(summary(seen), ["node.kubernetes.io/not-ready:NoExecute:300", `${UNREACHABLE}:NoExecute:300`], "the webhook sees the default tolerations");
    assert.deepEqual(summary(created), ["node.kubernetes.io/not-ready:NoExecute:300", `${UNREACHABLE}:NoExecute:20`], "and its patch is stored");
  } finally {
    await webhook.close();
  }
});

test("the default seconds are options, as kube-apiserver's flags; a pod tolerating a taint itself keeps its own toleration", async () => {
  const cluster = new SimCluster({ defaultNotReadyTolerationSeconds: 60, defaultUnreachableTolerationSeconds: 20 });
  assert.deepEqual(summary(await cluster.create(pod("p"))), ["node.kubernetes.io/not-ready:NoExecute:60", `${UNREACHABLE}:NoExecute:20`]);
  const own = await cluster.create(pod("own", [{ key: UNREACHABLE, operator: "Exists", effect: "NoExecute" }]));
  assert.deepEqual(summary(own), [`${UNREACHABLE}:NoExecute:forever`, "node.kubernetes.io/not-ready:NoExecute:60"]);
});

test("pod updates: tolerationSeconds may change or go, tolerations may be added; anything else is 422 Forbidden", async () => {
  const cluster = new SimCluster();
  await cluster.create(pod("p", [{ key: "gpu", operator: "Exists", effect: "NoSchedule" }]));
  const current = (await cluster.get(POD, "default", "p")) as Obj;
  const tolerations = current.spec.tolerations as Obj[];
  const changed = tolerations.map((t) => (t.key === UNREACHABLE ? { ...t, tolerationSeconds: 20 } : t.key === "node.kubernetes.io/not-ready" ? { key: t.key, operator: t.operator, effect: t.effect } : t));
  const patched = (await cluster.patch(POD, "default", "p", { spec: { tolerations: [...changed, { key: "new", operator: "Exists" }] } }, "merge")) as Obj;
  assert.deepEqual(summary(patched), ["gpu:NoSchedule:forever", "node.kubernetes.io/not-ready:NoExecute:forever", `${UNREACHABLE}:NoExecute:20`, "new:undefined:forever"]);
  const error = await apiError(cluster.patch(POD, "default", "p", { spec: { tolerations: [{ key: "gpu", operator: "Exists", effect: "NoExecute" }, ...changed.slice(1)] } }, "merge"));
  assert.equal(error.code, 422);
  assert.equal(error.message, 'Pod "p" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds');
  // DefaultTolerationSeconds runs on updates too: a body without the defaults gets them back.
  const replaced = (await cluster.update({ ...patched, spec: { ...patched.spec, tolerations: patched.spec.tolerations.filter((t: Obj) => t.key !== UNREACHABLE) } } as unknown as KubeObject)) as Obj;
  assert.deepEqual(summary(replaced).at(-1), `${UNREACHABLE}:NoExecute:300`);
  const invalid = await apiError(cluster.create(pod("bad", [{ key: "k", operator: "Exists", effect: "NoSchedule", tolerationSeconds: 5 }])));
  assert.equal(invalid.message, "Pod \"bad\" is invalid: spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set");
});
