import assert from "node:assert/strict";
import { test } from "node:test";
import {
  fieldValue,
  formatLabelRequirements,
  matchesFieldRequirements,
  matchesLabelRequirements,
  matchesLabelSelector,
  matchesNodeSelectorTerms,
  parseFieldSelector,
  parseLabelSelector,
  requirementHolds,
  requirementsOfLabelSelector,
  SelectorError,
  type LabelRequirement,
} from "./selectors.ts";

// The cases and messages below are apimachinery's (labels/selector_test.go, fields/selector_test.go)
// and what kube-apiserver v1.36 answered `npm run conformance`'s list scenarios.

test("requirements: set operators on present and absent values; Gt/Lt on base-10 int64s only", () => {
  const cases: [string, string[], string | undefined, boolean][] = [
    ["In", ["a", "b"], "a", true],
    ["In", ["a"], undefined, false],
    ["=", ["a"], "a", true],
    ["==", ["a"], "b", false],
    ["NotIn", ["a"], undefined, true],
    ["NotIn", ["a"], "a", false],
    ["!=", ["a"], undefined, true],
    ["!=", ["a"], "a", false],
    ["Exists", [], "", true],
    ["DoesNotExist", [], undefined, true],
    ["DoesNotExist", [], "", false],
    ["Gt", ["4"], "8", true],
    ["Lt", ["4"], "-2", true],
    ["Gt", ["9223372036854775806"], "9223372036854775807", true],
    ["Gt", ["4"], "9223372036854775808", false],
    ["Gt", ["4"], "8.5", false],
    ["Gt", ["4"], "0x10", false],
    ["Gt", ["4", "5"], "8", false],
    ["Gt", ["four"], "8", false],
    ["Gt", ["4"], undefined, false],
    ["Near", ["a"], "a", false],
  ];
  for (const [operator, values, value, holds] of cases) assert.equal(requirementHolds(operator, values, value), holds, `${operator} ${JSON.stringify(values)} ${String(value)}`);
});

test("label selector strings parse as labels.Parse does: sorted by key, values sorted and unique", () => {
  const cases: [string, LabelRequirement[]][] = [
    ["", []],
    ["x=a", [{ key: "x", operator: "=", values: ["a"] }]],
    ["x==a", [{ key: "x", operator: "==", values: ["a"] }]],
    ["x!=a", [{ key: "x", operator: "!=", values: ["a"] }]],
    ["x=", [{ key: "x", operator: "=", values: [""] }]],
    [" x = a , y ", [{ key: "x", operator: "=", values: ["a"] }, { key: "y", operator: "Exists", values: [] }]],
    ["z,!y,x", [{ key: "x", operator: "Exists", values: [] }, { key: "y", operator: "DoesNotExist", values: [] }, { key: "z", operator: "Exists", values: [] }]],
    ["x in (foo,,baz),y,z notin ()", [{ key: "x", operator: "In", values: ["", "baz", "foo"] }, { key: "y", operator: "Exists", values: [] }, { key: "z", operator: "NotIn", values: [""] }]],
    ["x in (b,a,b)", [{ key: "x", operator: "In", values: ["a", "b"] }]],
    ["x notin(in)", [{ key: "x", operator: "NotIn", values: ["in"] }]],
    ["in in (in,notin)", [{ key: "in", operator: "In", values: ["in", "notin"] }]],
    ["x>1,y<10", [{ key: "x", operator: "Gt", values: ["1"] }, { key: "y", operator: "Lt", values: ["10"] }]],
    ["example.com/app=web", [{ key: "example.com/app", operator: "=", values: ["web"] }]],
  ];
  for (const [selector, want] of cases) assert.deepEqual(parseLabelSelector(selector), want, selector);
  assert.deepEqual(parseLabelSelector(undefined), []);
});

test("label selector strings that do not parse: the API server's messages", () => {
  const nameRule = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  const valueRule = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  const cases: [string, string][] = [
    ["app=Not Valid", "found 'Valid', expected: ',' or 'end of string'"],
    ["app:monolith", `unable to parse requirement: <nil>: Invalid value: "app:monolith": ${nameRule}`],
    ["x=a||y=b", `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${valueRule}`],
    ["x in (a,-b,-c)", `unable to parse requirement: [values[0][x]: Invalid value: "-b": ${valueRule}, values[1][x]: Invalid value: "-c": ${valueRule}]`],
    ["x>a", `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    ["x,", "found '', expected: identifier after ','"],
    [",x", "found ',', expected: !, identifier, or 'end of string'"],
    ["x=a,=b", "found '=', expected: identifier after ','"],
    ["x in a", "unable to parse requirement: found 'a' expected: '('"],
    ["x in (a", "unable to parse requirement: found '', expected: ',' or ')'"],
    ["x in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ["x in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ["x in (,=)", "unable to parse requirement: found '=', expected: ',', or identifier"],
    ["x y", "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt"],
    ["x=(a)", "unable to parse requirement: found '(', expected: identifier"],
    ["!x=a", "found '=', expected: ',' or 'end of string'"],
    ["!", "unable to parse requirement: found '', expected: identifier"],
  ];
  for (const [selector, message] of cases) assert.throws(() => parseLabelSelector(selector), (error: unknown) => error instanceof SelectorError && error.message === message, selector);
});

test("parsed selectors match labels as Requirement.Matches does", () => {
  const labels = { app: "web", tier: "front", rank: "3" };
  const cases: [string, boolean][] = [
    ["app=web", true],
    ["app==web,tier", true],
    ["app!=db", true],
    ["missing!=x", true],
    ["app in (db,web)", true],
    ["app notin (web)", false],
    ["missing notin (web)", true],
    ["!missing,app", true],
    ["!app", false],
    ["rank>2,rank<4", true],
    ["rank>3", false],
    ["app>1", false],
    ["", true],
  ];
  for (const [selector, want] of cases) assert.equal(matchesLabelRequirements(labels, parseLabelSelector(selector)), want, selector);
  assert.equal(matchesLabelRequirements(undefined, parseLabelSelector("!app")), true, "no labels: no key exists");
  assert.equal(matchesLabelRequirements({}, parseLabelSelector("constructor")), false, "a key is the object's own");
});

test("LabelSelector objects: matchLabels then expressions, sorted by key, formatted as Selector.String", () => {
  const selector = { matchLabels: { tier: "front", app: "web" }, matchExpressions: [{ key: "env", operator: "In", values: ["prod", "dev"] }, { key: "legacy", operator: "DoesNotExist" }, { key: "gpu", operator: "Exists" }, { key: "zone", operator: "NotIn", values: ["b"] }] };
  const requirements = requirementsOfLabelSelector(selector);
  assert.equal(formatLabelRequirements(requirements), "app=web,env in (dev,prod),gpu,!legacy,tier=front,zone notin (b)");
  assert.equal(matchesLabelRequirements({ app: "web", tier: "front", env: "dev", gpu: "1" }, requirements), true);
  assert.equal(matchesLabelSelector({ app: "web", tier: "front", env: "dev", gpu: "1" }, selector), true);
  assert.equal(matchesLabelSelector({ app: "web", tier: "front", env: "test", gpu: "1" }, selector), false);
  assert.deepEqual(requirementsOfLabelSelector(undefined), []);
  assert.equal(matchesLabelSelector(undefined, {}), true, "an empty selector matches everything");
  assert.throws(() => requirementsOfLabelSelector({ matchExpressions: [{ key: "a", operator: "Gt", values: ["1"] }] }), new SelectorError('"Gt" is not a valid label selector operator'));
  assert.equal(matchesLabelSelector({ a: "2" }, { matchExpressions: [{ key: "a", operator: "Gt", values: ["1"] }] }), false, "no Gt in a LabelSelector");
  assert.equal(formatLabelRequirements(parseLabelSelector("x>1,!y,z==a")), "x>1,!y,z==a");
});

test("field selectors parse as fields.ParseSelector does: escapes, the first operator splits, terms sorted", () => {
  assert.deepEqual(parseFieldSelector("spec.nodeName=b,metadata.name!=a"), [
    { field: "metadata.name", operator: "!=", value: "a" },
    { field: "spec.nodeName", operator: "=", value: "b" },
  ]);
  assert.deepEqual(parseFieldSelector("metadata.name==a"), [{ field: "metadata.name", operator: "==", value: "a" }]);
  assert.deepEqual(parseFieldSelector("metadata.name=!x"), [{ field: "metadata.name", operator: "=", value: "!x" }]);
  assert.deepEqual(parseFieldSelector(String.raw`metadata.name=a\,b\=c\\d`), [{ field: "metadata.name", operator: "=", value: String.raw`a,b=c\d` }]);
  assert.deepEqual(parseFieldSelector("metadata.name=,"), [{ field: "metadata.name", operator: "=", value: "" }], "an empty term is skipped");
  assert.deepEqual(parseFieldSelector(undefined), []);
  const failures: [string, string][] = [
    ["status.phase in (Running)", "invalid selector: 'status.phase in (Running)'; can't understand 'status.phase in (Running)'"],
    ["metadata.name", "invalid selector: 'metadata.name'; can't understand 'metadata.name'"],
    ["metadata.name=a=b", "invalid field selector: unescaped character in value: 61"],
    [String.raw`metadata.name=a\x`, String.raw`invalid field selector: invalid escape sequence: \x`],
    ["metadata.name=a\\\\\\", "invalid field selector: invalid escape sequence: \\"],
  ];
  for (const [selector, message] of failures) assert.throws(() => parseFieldSelector(selector), new SelectorError(message), selector);
});

test("field selectors name only the fields a kind serves, worded as kube-apiserver v1.36", () => {
  assert.deepEqual(parseFieldSelector("metadata.namespace=a,status.phase=Running", ["status.phase"]).length, 2);
  assert.throws(
    () => parseFieldSelector("spec.nodeName=x", ["status.phase", "spec.hostNetwork"]),
    new SelectorError('"spec.nodeName" is not a known field selector: only "metadata.name", "metadata.namespace", "spec.hostNetwork", "status.phase"'),
  );
  assert.throws(() => parseFieldSelector(" metadata.name=a", []), SelectorError, "no white space is trimmed from a field");
});

test("field selectors match the fields' text; boolean fields read false when absent", () => {
  const pod = { metadata: { name: "p", namespace: "ns" }, spec: { nodeName: "n1", priority: 5, hostNetwork: true }, status: {} };
  assert.equal(fieldValue(pod, "spec.priority"), "5");
  assert.equal(fieldValue(pod, "status.phase"), "");
  assert.equal(fieldValue({ spec: {} }, "spec.unschedulable"), "false");
  assert.equal(fieldValue(pod, "spec.hostNetwork"), "true");
  const cases: [string, boolean][] = [
    ["metadata.name=p,spec.nodeName=n1", true],
    ["spec.nodeName!=n1", false],
    ["status.phase=", true],
    ["status.phase!=Running", true],
    ["metadata.namespace==ns", true],
  ];
  for (const [selector, want] of cases) assert.equal(matchesFieldRequirements(pod, parseFieldSelector(selector)), want, selector);
});

test("node selector terms: ORed terms of ANDed requirements; matchFields on metadata.name only; an empty term matches nothing", () => {
  const node = { name: "edge-1", labels: { zone: "a", gpus: "4" } };
  const cases: [Parameters<typeof matchesNodeSelectorTerms>[1], boolean][] = [
    [[{ matchExpressions: [{ key: "zone", operator: "In", values: ["a", "b"] }] }], true],
    [[{ matchExpressions: [{ key: "zone", operator: "In", values: ["b"] }] }, { matchFields: [{ key: "metadata.name", operator: "In", values: ["edge-1"] }] }], true],
    [[{ matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }], matchFields: [{ key: "metadata.name", operator: "NotIn", values: ["edge-1"] }] }], false],
    [[{ matchExpressions: [{ key: "gpus", operator: "Gt", values: ["2"] }, { key: "tpu", operator: "DoesNotExist" }] }], true],
    [[{ matchFields: [{ key: "metadata.uid", operator: "In", values: ["edge-1"] }] }], false],
    [[{}], false],
    [[], false],
  ];
  for (const [terms, want] of cases) assert.equal(matchesNodeSelectorTerms(node, terms), want, JSON.stringify(terms));
});
