import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { defaultTolerationSeconds, validateOnlyAddedTolerations, validateTolerations } from "./tolerations.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const NOT_READY = "node.kubernetes.io/not-ready";
const UNREACHABLE = "node.kubernetes.io/unreachable";

function added(tolerations?: Obj[], seconds?: { notReadySeconds: number; unreachableSeconds: number }): string[] {
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [], ...(tolerations ? { tolerations } : {}) } } as KubeObject;
  const tolerated = ((defaultTolerationSeconds(pod, seconds) as Obj).spec.tolerations ?? []) as Obj[];
  return tolerated.slice(tolerations?.length ?? 0).map((t) => `${t.key} ${t.operator} ${t.effect} ${t.tolerationSeconds}`);
}

test("DefaultTolerationSeconds: both NoExecute tolerations for 300 s, appended, unless the pod has one for that taint", () => {
  assert.deepEqual(added(), [`${NOT_READY} Exists NoExecute 300`, `${UNREACHABLE} Exists NoExecute 300`]);
  assert.deepEqual(added([{ key: UNREACHABLE, operator: "Exists", effect: "NoExecute" }]), [`${NOT_READY} Exists NoExecute 300`], "tolerated forever already");
  assert.deepEqual(added([{ key: NOT_READY, operator: "Exists", effect: "NoExecute", tolerationSeconds: 20 }]), [`${UNREACHABLE} Exists NoExecute 300`]);
  assert.deepEqual(added([{ key: UNREACHABLE, operator: "Exists" }]), [`${NOT_READY} Exists NoExecute 300`], "no effect is every effect");
  assert.deepEqual(added([{ operator: "Exists" }]), [], "no key is every key");
  assert.deepEqual(added([{ operator: "Exists", effect: "NoSchedule" }]), [`${NOT_READY} Exists NoExecute 300`, `${UNREACHABLE} Exists NoExecute 300`], "another effect does not count");
  assert.deepEqual(added([{ key: UNREACHABLE, operator: "Equal", value: "x", effect: "NoExecute" }]), [`${NOT_READY} Exists NoExecute 300`], "the plugin looks at key and effect only");
  assert.deepEqual(added(undefined, { notReadySeconds: 20, unreachableSeconds: 0 }), [`${NOT_READY} Exists NoExecute 20`, `${UNREACHABLE} Exists NoExecute 0`], "the kube-apiserver flags");
});

const messages = (tolerations: Obj[]): string[] => validateTolerations(tolerations, "spec.tolerations").map((c) => `${c.field}: ${c.message}`);

test("ValidateTolerations: tolerationSeconds only with NoExecute; keys, operators, values and effects as upstream words them", () => {
  assert.deepEqual(messages([{ key: "k", operator: "Exists", effect: "NoExecute", tolerationSeconds: 5 }, { operator: "Exists" }]), []);
  assert.deepEqual(messages([{ key: "k", operator: "Exists", effect: "NoSchedule", tolerationSeconds: 5 }]), ["spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"]);
  assert.deepEqual(messages([{ key: "k", operator: "Exists", tolerationSeconds: 5 }]), ["spec.tolerations[0].effect: Invalid value: \"\": effect must be 'NoExecute' when `tolerationSeconds` is set"]);
  assert.deepEqual(messages([{ value: "v" }]), ['spec.tolerations[0].operator: Invalid value: "": operator must be Exists when `key` is empty, which means "match all values and all keys"']);
  assert.deepEqual(messages([{ key: "k", operator: "Exists", value: "v", effect: "NoExecute" }]), [
    'spec.tolerations[0].operator: Invalid value: {"Key":"k","Operator":"Exists","Value":"v","Effect":"NoExecute","TolerationSeconds":null}: value must be empty when `operator` is \'Exists\'',
  ]);
  assert.deepEqual(messages([{ key: "k", operator: "Lt", value: "3" }]), ['spec.tolerations[0].operator: Unsupported value: "Lt": supported values: "Equal", "Exists"']);
  assert.deepEqual(messages([{ key: "k", operator: "Exists", effect: "NoRun" }]), ['spec.tolerations[0].effect: Unsupported value: "NoRun": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"']);
  assert.match(messages([{ key: "bad key", operator: "Exists" }])[0] ?? "", /^spec\.tolerations\[0\]\.key: Invalid value: "bad key": name part must consist of alphanumeric characters/);
  assert.match(messages([{ key: "k", value: "not a label value" }])[0] ?? "", /^spec\.tolerations\[0\]\.operator: Invalid value: "not a label value": a valid label must be/);
});

const FORBIDDEN = "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds";
const updated = (next: Obj[], previous: Obj[]): string[] => validateOnlyAddedTolerations(next, previous, "spec.tolerations").map((c) => `${c.field}: ${c.message}`);

test("validateOnlyAddedTolerations: additions and tolerationSeconds changes (removal too) pass; any other change or a removal is forbidden", () => {
  const base = [{ key: UNREACHABLE, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 }, { key: "gpu", operator: "Equal", value: "yes", effect: "NoSchedule" }];
  assert.deepEqual(updated([...base, { key: "new", operator: "Exists" }], base), []);
  assert.deepEqual(updated([{ ...base[0], tolerationSeconds: 20 }, base[1] ?? {}], base), []);
  assert.deepEqual(updated([{ key: UNREACHABLE, operator: "Exists", effect: "NoExecute" }, base[1] ?? {}], base), [], "tolerate forever");
  assert.deepEqual(updated([base[1] ?? {}, base[0] ?? {}], base), [], "order does not matter");
  assert.deepEqual(updated([base[0] ?? {}], base), [FORBIDDEN]);
  assert.deepEqual(updated([base[0] ?? {}, { ...base[1], value: "no" }], base), [FORBIDDEN]);
  assert.deepEqual(updated([{ ...base[0], effect: "NoSchedule" }, base[1] ?? {}], base), [FORBIDDEN]);
});
