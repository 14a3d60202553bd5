import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { CONTROLLER_UID_LABEL, defaultJob, JOB_NAME_LABEL, jobCauses } from "./job.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const job = (spec: Obj, metadata: Obj = {}): KubeObject => ({ apiVersion: "batch/v1", kind: "Job", metadata: { name: "pi", ...metadata }, spec }) as KubeObject;
const template = (labels?: Record<string, string>): Obj => ({ metadata: labels ? { labels } : {}, spec: { restartPolicy: "Never", containers: [{ name: "c", image: "perl" }] } });

test("defaults: one completion, parallelism 1, backoffLimit 6, NonIndexed, not suspended, TerminatingOrFailed; an empty status", () => {
  const out = defaultJob(job({ template: template() }), template(), "uid-1") as Obj;
  assert.deepEqual(
    { ...out.spec, template: undefined, selector: undefined },
    { completions: 1, parallelism: 1, backoffLimit: 6, completionMode: "NonIndexed", suspend: false, manualSelector: false, podReplacementPolicy: "TerminatingOrFailed", template: undefined, selector: undefined },
  );
  assert.deepEqual(out.status, {});
});

test("parallelism alone leaves completions unset (a work queue); given values are kept", () => {
  const out = defaultJob(job({ parallelism: 3, backoffLimit: 0, template: template() }), template(), "u") as Obj;
  assert.equal(out.spec.completions, undefined);
  assert.equal(out.spec.parallelism, 3);
  assert.equal(out.spec.backoffLimit, 0);
});

test("the generated selector picks the controller-uid label; the template (and a Job without labels) gets the four job labels", () => {
  const out = defaultJob(job({ template: template({ app: "pi" }) }), template({ app: "pi" }), "uid-1") as Obj;
  assert.deepEqual(out.spec.selector, { matchLabels: { [CONTROLLER_UID_LABEL]: "uid-1" } });
  const labels = { app: "pi", "job-name": "pi", [JOB_NAME_LABEL]: "pi", "controller-uid": "uid-1", [CONTROLLER_UID_LABEL]: "uid-1" };
  assert.deepEqual(out.spec.template.metadata.labels, labels);
  assert.deepEqual(out.metadata.labels, labels);
  const labelled = defaultJob(job({ template: template() }, { labels: { team: "a" } }), template(), "uid-1") as Obj;
  assert.deepEqual(labelled.metadata.labels, { team: "a" }, "a Job's own labels stay");
});

test("manualSelector: the user's selector and labels as given", () => {
  const out = defaultJob(job({ manualSelector: true, selector: { matchLabels: { app: "pi" } }, template: template({ app: "pi" }) }), template({ app: "pi" }), "uid-1") as Obj;
  assert.deepEqual(out.spec.selector, { matchLabels: { app: "pi" } });
  assert.deepEqual(out.spec.template.metadata.labels, { app: "pi" });
});

test("validation: restartPolicy must be OnFailure or Never (the defaulted Always is refused), Indexed needs completions", () => {
  const always = jobCauses(job({ template: { spec: { restartPolicy: "Always" } } }));
  assert.deepEqual(always, [{ field: "spec.template.spec.restartPolicy", reason: "FieldValueNotSupported", message: 'Unsupported value: "Always": supported values: "OnFailure", "Never"' }]);
  assert.deepEqual(jobCauses(job({ completionMode: "Indexed", template: template() })).map((c) => c.field), ["spec.completions"]);
  assert.deepEqual(jobCauses(job({ backoffLimit: -1, template: template() })).map((c) => c.field), ["spec.backoffLimit"]);
  assert.deepEqual(jobCauses(job({ completions: 2, template: template() })), []);
});
