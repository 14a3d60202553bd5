import assert from "node:assert/strict";
import { test } from "node:test";
import { taintTolerated, toleratesTaint, type Taint, type Toleration } from "./taints.ts";

test("tolerations match taints as Toleration.ToleratesTaint does", () => {
  const unreachable: Taint = { key: "node.kubernetes.io/unreachable", effect: "NoExecute" };
  const gpu: Taint = { key: "gpu", value: "yes", effect: "NoSchedule" };
  const cases: [Toleration, Taint, boolean][] = [
    [{ operator: "Exists" }, unreachable, true],
    [{ key: unreachable.key, operator: "Exists" }, unreachable, true],
    [{ key: unreachable.key, operator: "Exists", effect: "NoSchedule" }, unreachable, false],
    [{ key: "other", operator: "Exists" }, unreachable, false],
    [{ key: "gpu", value: "yes" }, gpu, true],
    [{ key: "gpu", operator: "Equal", value: "no" }, gpu, false],
    [{ key: unreachable.key, operator: "Equal" }, unreachable, true],
    [{ key: "", operator: "Equal", value: "" }, { key: "a", value: "", effect: "NoSchedule" }, true],
    [{ key: unreachable.key, operator: "Lt" }, unreachable, false],
  ];
  for (const [toleration, taint, want] of cases) assert.equal(toleratesTaint(toleration, taint), want, JSON.stringify([toleration, taint]));
  assert.equal(taintTolerated([{ key: "x", operator: "Exists" }, { key: "gpu", value: "yes" }], gpu), true);
  assert.equal(taintTolerated([], gpu), false);
});
