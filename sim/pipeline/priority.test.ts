import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { ApiError } from "../contract.ts";
import { admitPodPriority, checkPriorityClassTypes, defaultPriorityClass, globalDefaultClass, globalDefaultConflict, keepPodPriority, priorityClassCauses, systemClassDeletion, systemPriorityClasses } from "./priority.ts";

type Obj = Record<string, unknown>;

const pc = (name: string, value: number, extra: Obj = {}): KubeObject => ({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name }, value, preemptionPolicy: "PreemptLowerPriority", ...extra }) as KubeObject;
const pod = (spec: Obj = {}): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" }, spec: { containers: [{ name: "c", image: "i" }], ...spec } }) as KubeObject;
const specOf = (o: KubeObject): Obj => (o as KubeObject & { spec: Obj }).spec;

function thrown(f: () => unknown): ApiError {
  try {
    f();
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    return error;
  }
  assert.fail("expected an ApiError");
}

test("the system classes: system-node-critical 2000001000, system-cluster-critical 2000000000", () => {
  const classes = systemPriorityClasses();
  assert.deepEqual(
    classes.map((c) => [c.metadata.name, (c as KubeObject & Obj).value, (c as KubeObject & Obj).preemptionPolicy]),
    [
      ["system-node-critical", 2_000_001_000, "PreemptLowerPriority"],
      ["system-cluster-critical", 2_000_000_000, "PreemptLowerPriority"],
    ],
  );
  for (const c of classes) assert.deepEqual(priorityClassCauses(c), [], `${c.metadata.name ?? ""} passes the reserved-name check`);
});

test("decoding: value must be an int32, the other fields their Go types (400)", () => {
  const bad = (value: unknown): ApiError => thrown(() => checkPriorityClassTypes(pc("x", 0, { value })));
  assert.equal(bad("high").message, 'PriorityClass in version "v1" cannot be handled as a PriorityClass: json: cannot unmarshal string into Go struct field PriorityClass.value of type int32');
  assert.equal(bad(1.5).code, 400);
  assert.match(bad(2 ** 31).message, /cannot unmarshal number 2147483648 into Go struct field PriorityClass\.value of type int32/);
  assert.match(thrown(() => checkPriorityClassTypes(pc("x", 0, { globalDefault: "yes" }))).message, /PriorityClass\.globalDefault of type bool/);
  checkPriorityClassTypes(pc("x", -5));
  checkPriorityClassTypes({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: "x" } } as KubeObject);
});

test("defaulting: preemptionPolicy PreemptLowerPriority, value 0 when absent, omitempty fields dropped", () => {
  const defaulted = defaultPriorityClass({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: "x" }, globalDefault: false, description: "" } as unknown as KubeObject) as KubeObject & Obj;
  assert.equal(defaulted.value, 0);
  assert.equal(defaulted.preemptionPolicy, "PreemptLowerPriority");
  assert.equal("globalDefault" in defaulted, false);
  assert.equal("description" in defaulted, false);
  assert.equal((defaultPriorityClass(pc("y", 1, { preemptionPolicy: "Never" })) as KubeObject & Obj).preemptionPolicy, "Never");
});

test("validation: reserved system- names, at most 1e9 for user classes, supported policies, value and policy immutable", () => {
  assert.deepEqual(priorityClassCauses(pc("high", 1_000_000_000)), []);
  assert.deepEqual(priorityClassCauses(pc("high", 1_000_000_001)), [{ field: "value", reason: "FieldValueForbidden", message: "Forbidden: maximum allowed value of a user defined priority is 1000000000" }]);
  assert.deepEqual(priorityClassCauses(pc("system-mine", 5)), [
    { field: "metadata.name", reason: "FieldValueForbidden", message: "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class" },
  ]);
  assert.match(priorityClassCauses(pc("system-node-critical", 5))[0]?.message ?? "", /error: value of system-node-critical PriorityClass must be 2000001000$/);
  assert.match(priorityClassCauses(pc("system-cluster-critical", 2_000_000_000, { globalDefault: true }))[0]?.message ?? "", /globalDefault of system-cluster-critical PriorityClass must be false$/);
  assert.deepEqual(priorityClassCauses(pc("x", 1, { preemptionPolicy: "Sometimes" })), [{ field: "preemptionPolicy", reason: "FieldValueNotSupported", message: 'Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"' }]);
  assert.deepEqual(priorityClassCauses(pc("x", 2), pc("x", 1)), [{ field: "value", reason: "FieldValueForbidden", message: "Forbidden: may not be changed in an update." }]);
  assert.deepEqual(priorityClassCauses(pc("x", 1, { preemptionPolicy: "Never" }), pc("x", 1)), [{ field: "preemptionPolicy", reason: "FieldValueInvalid", message: 'Invalid value: "Never": field is immutable' }]);
  assert.deepEqual(priorityClassCauses(pc("x", 1, { description: "changed", globalDefault: true }), pc("x", 1)), [], "description and globalDefault may change");
});

test("one global default: a second one is refused (403), the default itself may be updated; the lowest value wins a race", () => {
  const classes = [pc("low", 1, { globalDefault: true }), pc("other", 5)];
  const refused = globalDefaultConflict(pc("another", 2, { globalDefault: true }), "CREATE", classes);
  assert.equal(refused?.code, 403);
  assert.equal(refused?.message, 'priorityclasses.scheduling.k8s.io "another" is forbidden: PriorityClass low is marked as default. Only one default can exist');
  assert.equal(globalDefaultConflict(pc("other", 5, { globalDefault: true }), "UPDATE", classes)?.code, 403);
  assert.equal(globalDefaultConflict(pc("low", 1, { globalDefault: true, description: "d" }), "UPDATE", classes), undefined);
  assert.equal(globalDefaultConflict(pc("another", 2), "CREATE", classes), undefined);
  assert.equal(globalDefaultClass([pc("a", 9, { globalDefault: true }), pc("b", 3, { globalDefault: true })])?.metadata.name, "b");
});

test("system classes cannot be deleted (403)", () => {
  assert.equal(systemClassDeletion("system-node-critical")?.message, 'priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted');
  assert.equal(systemClassDeletion("high"), undefined);
});

test("pod admission: the named class's value and policy; unknown class 403", () => {
  const classes = [pc("high", 1000, { preemptionPolicy: "Never" })];
  const admitted = specOf(admitPodPriority(pod({ priorityClassName: "high" }), classes, "p"));
  assert.equal(admitted.priority, 1000);
  assert.equal(admitted.preemptionPolicy, "Never");
  assert.equal(admitted.priorityClassName, "high");
  const unknown = thrown(() => admitPodPriority(pod({ priorityClassName: "foo" }), classes, "x"));
  assert.equal(unknown.code, 403);
  assert.equal(unknown.reason, "Forbidden");
  assert.equal(unknown.message, 'pods "x" is forbidden: no PriorityClass with name foo was found');
});

test("pod admission without a class: the global default (its name set too), else 0 and PreemptLowerPriority", () => {
  const none = specOf(admitPodPriority(pod(), [pc("high", 1000)], "p"));
  assert.equal(none.priority, 0);
  assert.equal(none.preemptionPolicy, "PreemptLowerPriority");
  assert.equal(none.priorityClassName, undefined);
  const defaulted = specOf(admitPodPriority(pod(), [pc("high", 1000), pc("normal", 100, { globalDefault: true })], "p"));
  assert.equal(defaulted.priority, 100);
  assert.equal(defaulted.priorityClassName, "normal");
});

test("pod admission: a priority or policy in the spec that differs from the computed one is refused (403); an equal one passes", () => {
  const classes = [pc("high", 1000)];
  assert.equal(
    thrown(() => admitPodPriority(pod({ priorityClassName: "high", priority: 5 }), classes, "p")).message,
    'pods "p" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name',
  );
  assert.equal(
    thrown(() => admitPodPriority(pod({ priority: 7 }), classes, "p")).message,
    'pods "p" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name',
  );
  assert.equal(specOf(admitPodPriority(pod({ priorityClassName: "high", priority: 1000 }), classes, "p")).priority, 1000);
  assert.match(thrown(() => admitPodPriority(pod({ priorityClassName: "high", preemptionPolicy: "Never" }), classes, "p")).message, /the string value of PreemptionPolicy \(Never\) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority/);
});

test("pod update: a body without priority keeps the stored one", () => {
  const stored = pod({ priorityClassName: "high", priority: 1000, preemptionPolicy: "Never" });
  const kept = specOf(keepPodPriority(pod({ priorityClassName: "high" }), stored));
  assert.equal(kept.priority, 1000);
  assert.equal(kept.preemptionPolicy, "Never");
  const same = pod({ priority: 3, preemptionPolicy: "PreemptLowerPriority" });
  assert.equal(keepPodPriority(same, stored), same);
});
