import assert from "node:assert/strict";
import { test } from "node:test";
import { checkNode, nodeFacts, podConstraints } from "./node-fit.ts";
import { rawNode, rawPod } from "./testing/build.ts";

function fits(pod: Record<string, unknown>, node: Record<string, unknown>, transient = true): string | undefined {
  return checkNode(podConstraints(pod), nodeFacts(node), transient)?.kind;
}

test("nodeSelector needs every label", () => {
  const pod = rawPod("p", { nodeSelector: { disk: "ssd", zone: "a" } });
  assert.equal(fits(pod, rawNode("n", { labels: { disk: "ssd", zone: "a" } })), undefined);
  assert.equal(fits(pod, rawNode("n", { labels: { disk: "ssd" } })), "node-selector");
});

test("required node affinity: terms ORed, expressions ANDed, every operator, matchFields on metadata.name", () => {
  const affinity = (terms: unknown): unknown => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } });
  const node = rawNode("n1", { labels: { zone: "a", cores: "16" } });
  const cases: [unknown, boolean][] = [
    [[{ matchExpressions: [{ key: "zone", operator: "In", values: ["a", "b"] }] }], true],
    [[{ matchExpressions: [{ key: "zone", operator: "NotIn", values: ["a"] }] }], false],
    [[{ matchExpressions: [{ key: "gpu", operator: "NotIn", values: ["x"] }] }], true],
    [[{ matchExpressions: [{ key: "zone", operator: "Exists" }] }], true],
    [[{ matchExpressions: [{ key: "zone", operator: "DoesNotExist" }] }], false],
    [[{ matchExpressions: [{ key: "cores", operator: "Gt", values: ["8"] }] }], true],
    [[{ matchExpressions: [{ key: "cores", operator: "Lt", values: ["8"] }] }], false],
    [[{ matchExpressions: [{ key: "zone", operator: "Gt", values: ["8"] }] }], false],
    [[{ matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }, { key: "cores", operator: "Lt", values: ["8"] }] }], false],
    [[{ matchExpressions: [{ key: "zone", operator: "In", values: ["b"] }] }, { matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] }], true],
    [[{ matchFields: [{ key: "metadata.name", operator: "In", values: ["n1"] }] }], true],
    [[{ matchFields: [{ key: "metadata.name", operator: "NotIn", values: ["n1"] }] }], false],
    [[{}], false],
  ];
  for (const [terms, expected] of cases) assert.equal(fits(rawPod("p", { affinity: affinity(terms) }), node) === undefined, expected, JSON.stringify(terms));
});

test("taints NoSchedule and NoExecute must be tolerated; PreferNoSchedule is not a filter", () => {
  const gpuNode = rawNode("n", { taints: [{ key: "gpu", value: "true", effect: "NoSchedule" }] });
  assert.equal(fits(rawPod("p"), gpuNode), "taint");
  assert.equal(fits(rawPod("p", { tolerations: [{ key: "gpu", operator: "Equal", value: "true", effect: "NoSchedule" }] }), gpuNode), undefined);
  assert.equal(fits(rawPod("p", { tolerations: [{ key: "gpu", value: "true" }] }), gpuNode), undefined);
  assert.equal(fits(rawPod("p", { tolerations: [{ key: "gpu", value: "false" }] }), gpuNode), "taint");
  assert.equal(fits(rawPod("p", { tolerations: [{ key: "gpu", operator: "Exists" }] }), gpuNode), undefined);
  assert.equal(fits(rawPod("p", { tolerations: [{ operator: "Exists" }] }), gpuNode), undefined);
  assert.equal(fits(rawPod("p", { tolerations: [{ key: "gpu", operator: "Exists", effect: "NoExecute" }] }), gpuNode), "taint");
  assert.equal(fits(rawPod("p"), rawNode("n", { taints: [{ key: "x", effect: "NoExecute" }] })), "taint");
  assert.equal(fits(rawPod("p"), rawNode("n", { taints: [{ key: "x", effect: "PreferNoSchedule" }] })), undefined);
});

test("cordoned nodes take only pods tolerating node.kubernetes.io/unschedulable; NotReady nodes none", () => {
  const cordoned = rawNode("n", { unschedulable: true });
  assert.equal(fits(rawPod("p"), cordoned), "unschedulable");
  assert.equal(fits(rawPod("p", { tolerations: [{ key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" }] }), cordoned), undefined);
  assert.equal(fits(rawPod("p"), rawNode("n", { ready: false })), "not-ready");
  assert.equal(fits(rawPod("p"), rawNode("n", { ready: false }), false), undefined, "readiness is transient");
  assert.equal(fits(rawPod("p"), rawNode("n", { taints: [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }] }), false), undefined);
});

test("a failure names what failed, the same text for every node failing alike", () => {
  const failure = checkNode(podConstraints(rawPod("p")), nodeFacts(rawNode("n", { taints: [{ key: "gpu", value: "true", effect: "NoSchedule" }] })));
  assert.equal(failure?.text, "node had untolerated taint {gpu=true:NoSchedule}");
});

test("equal constraints have equal keys", () => {
  assert.equal(podConstraints(rawPod("a", { nodeSelector: { x: "1" } })).key, podConstraints(rawPod("b", { nodeSelector: { x: "1" } })).key);
  assert.notEqual(podConstraints(rawPod("a")).key, podConstraints(rawPod("b", { nodeSelector: { x: "1" } })).key);
});
