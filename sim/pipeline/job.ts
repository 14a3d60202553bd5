/**
 * What kube-apiserver does to a batch/v1 Job on create: the defaults (SetDefaults_Job),
 * the generated selector and pod labels (the job strategy's generateSelector), and the
 * Job-specific validations clients meet first.
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { Cause } from "./errors.ts";

type Obj = Record<string, unknown>;

const obj = (value: unknown): Obj => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : {});
const present = (value: unknown): boolean => value !== undefined && value !== null;

export const CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid";
export const JOB_NAME_LABEL = "batch.kubernetes.io/job-name";
const LEGACY_CONTROLLER_UID_LABEL = "controller-uid";
const LEGACY_JOB_NAME_LABEL = "job-name";
const MAX_INT32 = 2_147_483_647;

/** Labels the pods of a Job carry so that its generated selector picks them (a user's own values win). */
function generatedLabels(labels: Readonly<Record<string, string>>, name: string, uid: string): Record<string, string> {
  return { [LEGACY_JOB_NAME_LABEL]: name, [JOB_NAME_LABEL]: name, [LEGACY_CONTROLLER_UID_LABEL]: uid, [CONTROLLER_UID_LABEL]: uid, ...labels };
}

/**
 * A Job as created: counts, backoff and modes defaulted; unless `manualSelector`, the
 * selector on the controller-uid label and the four job labels on the pod template; the
 * Job's own labels, when it has none, those of its template; an empty status.
 * `template` is the pod template already defaulted as every pod template is.
 */
export function defaultJob(job: KubeObject, template: Obj, uid: string): KubeObject {
  const spec = obj((job as Obj).spec);
  const name = job.metadata.name ?? "";
  const manual = spec.manualSelector === true;
  const meta = obj(template.metadata);
  const labels = manual ? (obj(meta.labels) as Record<string, string>) : generatedLabels(obj(meta.labels) as Record<string, string>, name, uid);
  const selector = obj(spec.selector);
  const matchLabels = obj(selector.matchLabels);
  const defaults: Obj = {
    parallelism: 1,
    // Neither completions nor parallelism: one pod to run once; parallelism alone: a work queue.
    ...(!present(spec.completions) && !present(spec.parallelism) ? { completions: 1 } : {}),
    backoffLimit: present(spec.backoffLimitPerIndex) ? MAX_INT32 : 6,
    completionMode: "NonIndexed",
    suspend: false,
    manualSelector: false,
    podReplacementPolicy: present(spec.podFailurePolicy) ? "Failed" : "TerminatingOrFailed",
  };
  const given = Object.fromEntries(Object.entries(spec).filter(([, v]) => present(v)));
  return {
    ...job,
    metadata: { ...job.metadata, ...(Object.keys(job.metadata.labels ?? {}).length === 0 && Object.keys(labels).length > 0 ? { labels } : {}) },
    spec: {
      ...defaults,
      ...given,
      ...(manual ? {} : { selector: { ...selector, matchLabels: { ...matchLabels, [CONTROLLER_UID_LABEL]: String(matchLabels[CONTROLLER_UID_LABEL] ?? uid) } } }),
      template: { ...template, metadata: { ...meta, labels } },
    },
    status: {},
  } as KubeObject;
}

/** The Job validations (ValidateJob) that manifests most often trip over. */
export function jobCauses(job: KubeObject): Cause[] {
  const spec = obj((job as Obj).spec);
  const causes: Cause[] = [];
  const restartPolicy = String(obj(obj(spec.template).spec).restartPolicy ?? "");
  if (restartPolicy !== "OnFailure" && restartPolicy !== "Never") {
    causes.push({ field: "spec.template.spec.restartPolicy", reason: "FieldValueNotSupported", message: `Unsupported value: "${restartPolicy}": supported values: "OnFailure", "Never"` });
  }
  const mode = spec.completionMode;
  if (present(mode) && mode !== "NonIndexed" && mode !== "Indexed") {
    causes.push({ field: "spec.completionMode", reason: "FieldValueNotSupported", message: `Unsupported value: "${String(mode)}": supported values: "NonIndexed", "Indexed"` });
  }
  if (mode === "Indexed" && !present(spec.completions)) {
    causes.push({ field: "spec.completions", reason: "FieldValueRequired", message: "Required value: when completion mode is Indexed" });
  }
  for (const field of ["parallelism", "completions", "backoffLimit", "activeDeadlineSeconds", "ttlSecondsAfterFinished"]) {
    const value = spec[field];
    if (typeof value === "number" && value < 0) causes.push({ field: `spec.${field}`, reason: "FieldValueInvalid", message: `Invalid value: ${value}: must be greater than or equal to 0` });
  }
  return causes;
}
