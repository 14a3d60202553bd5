import assert from "node:assert/strict";
import { test } from "node:test";
import { isDns1035Label, isDns1123Label, isValidLabelValue } from "../../protocol/kube/names.ts";
import { boundedLabelValue, boundedName } from "./names.ts";

/** A valid DNS subdomain of exactly `length` characters (what a custom resource may be named). */
function subdomain(length: number, seed = "job"): string {
  let out = seed;
  while (out.length < length) out += out.length % 10 === 9 ? "-" : String.fromCharCode(97 + (out.length % 26));
  return out.slice(0, length).replace(/-$/, "z");
}

test("boundedName keeps a name that already fits, as users know it", () => {
  assert.equal(boundedName("helmet-detection-inference-example", "deployment-cloud"), "helmet-detection-inference-example-deployment-cloud");
  assert.equal(boundedName("surface-defect-detection", "aggregation", 63, "dns1035"), "surface-defect-detection-aggregation");
  assert.equal(boundedName("job", ""), "job");
});

for (const length of [63, 70, 253]) {
  test(`boundedName: a ${length}-character parent yields a DNS label of at most 63 characters, stable and unique`, () => {
    const base = subdomain(length);
    for (const suffix of ["aggregation", "deployment-cloud", "train-abcde", "cloud", ""]) {
      for (const rule of ["dns1123", "dns1035"] as const) {
        const name = boundedName(base, suffix, 63, rule);
        assert.ok((rule === "dns1035" ? isDns1035Label(name) : isDns1123Label(name)).length === 0, `${name} is a ${rule} label`);
        assert.ok(name.length <= 63, `${name.length} ≤ 63`);
        assert.ok(name.endsWith(suffix), "the suffix stays readable");
        assert.equal(boundedName(base, suffix, 63, rule), name, "deterministic");
      }
    }
    // Two parents alike in their first 60 characters still get different children.
    const other = `${base.slice(0, -1)}${base.endsWith("q") ? "r" : "q"}`;
    assert.notEqual(boundedName(other, "cloud"), boundedName(base, "cloud"));
    assert.notEqual(boundedName(base, "deployment-edge"), boundedName(base, "deployment-cloud"));
  });
}

test("boundedName: a smaller max is honoured; a cut never leaves a trailing '-'", () => {
  const base = "aaaaaaaaa-bbbbbbbbb-ccccccccc";
  for (let max = 20; max <= 40; max += 1) {
    const name = boundedName(base, "edge", max);
    assert.ok(name.length <= max, `${name} ≤ ${max}`);
    assert.ok(isDns1123Label(name).length === 0, name);
    assert.doesNotMatch(name, /--/, "no empty segment where the stem was cut on a '-'");
  }
});

test("boundedName: dotted and digit-first parents become valid labels (Service names must start with a letter)", () => {
  const dotted = boundedName("team.vision.job", "cloud", 63, "dns1035");
  assert.ok(isDns1035Label(dotted).length === 0, dotted);
  assert.match(dotted, /^team-vision-job-[0-9a-z]{8}-cloud$/);
  assert.notEqual(boundedName("team-vision.job", "cloud"), boundedName("team.vision-job", "cloud"), "sanitising does not merge names");
  assert.equal(boundedName("1st-job", "aggregation"), "1st-job-aggregation", "a DNS-1123 label may start with a digit");
  const service = boundedName("1st-job", "aggregation", 63, "dns1035");
  assert.ok(isDns1035Label(service).length === 0, service);
});

test("boundedName refuses a suffix that is not a label or leaves no room", () => {
  assert.throws(() => boundedName(subdomain(70), "Not_A_Label"), RangeError);
  assert.throws(() => boundedName(subdomain(70), "x".repeat(60)), RangeError);
});

test("boundedLabelValue keeps a valid value and bounds a long one to 63, stably and uniquely", () => {
  assert.equal(boundedLabelValue("surface-defect-detection"), "surface-defect-detection");
  assert.equal(boundedLabelValue("team.vision_job"), "team.vision_job");
  for (const length of [63, 64, 70, 253]) {
    const value = subdomain(length);
    const bounded = boundedLabelValue(value);
    assert.ok(isValidLabelValue(bounded).length === 0, `${bounded} is a label value`);
    assert.ok(bounded.length <= 63);
    assert.equal(boundedLabelValue(value), bounded);
    if (length === 63) assert.equal(bounded, value, "63 characters still fit");
  }
  assert.notEqual(boundedLabelValue(`${"a".repeat(70)}1`), boundedLabelValue(`${"a".repeat(70)}2`));
});
