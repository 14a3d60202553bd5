import assert from "node:assert/strict";
import { test } from "node:test";
import { matchingTolerations, minTolerationSeconds, UNREACHABLE } from "./taints.ts";

const unreachable = { key: UNREACHABLE, effect: "NoExecute" };

test("GetMatchingTolerations: per taint the first toleration that tolerates it; one untolerated taint and none are used", () => {
  const first = { key: UNREACHABLE, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 };
  const all = { operator: "Exists" };
  assert.deepEqual(matchingTolerations([unreachable], [first, all]), { tolerated: true, used: [first] });
  assert.deepEqual(matchingTolerations([unreachable], [all, first]), { tolerated: true, used: [all] });
  assert.deepEqual(matchingTolerations([unreachable, { key: "x", effect: "NoExecute" }], [first]), { tolerated: false, used: [] });
  assert.deepEqual(matchingTolerations([], []), { tolerated: true, used: [] });
});

test("getMinTolerationTime: the least seconds among those set, 0 for <= 0 or no tolerations, undefined (forever) when none sets any", () => {
  assert.equal(minTolerationSeconds([{ tolerationSeconds: 300 }, { tolerationSeconds: 20 }]), 20);
  assert.equal(minTolerationSeconds([{}, { tolerationSeconds: 20 }]), 20, "a toleration without seconds does not make the pod stay forever");
  assert.equal(minTolerationSeconds([{}, { tolerationSeconds: null }]), undefined);
  assert.equal(minTolerationSeconds([{ tolerationSeconds: 300 }, { tolerationSeconds: -5 }]), 0);
  assert.equal(minTolerationSeconds([{ tolerationSeconds: 0 }]), 0);
  assert.equal(minTolerationSeconds([]), 0);
});
