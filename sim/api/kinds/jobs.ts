/** batch/v1 Job: its defaults and generated selector, its pod template and Job rules validated, its pods orphaned by default. */
import type { KubeObject } from "../../../protocol/index.ts";
import { defaultTemplate } from "../../pipeline/defaults.ts";
import { defaultJob, jobCauses } from "../../pipeline/job.ts";
import { validatePodTemplate } from "../../pipeline/validation.ts";
import { asObj, type Obj } from "../objects.ts";
import { builtinKind, type BuiltinKind } from "./kind.ts";

const specOf = (job: KubeObject): Obj => asObj((job as KubeObject & Obj).spec);

/** Jobs. */
export const JOB: BuiltinKind = builtinKind(
  { group: "batch", version: "v1", kind: "Job", plural: "jobs", namespaced: true, categories: ["all"], status: true, generation: true },
  {
    defaultCreate: (job, write) => defaultJob(job, defaultTemplate(specOf(job).template), write.uid),
    validate: (job) => [...validatePodTemplate(specOf(job).template, "spec.template"), ...jobCauses(job)],
    // The Job rules hold for status writes too.
    validateSubresource: (job) => jobCauses(job),
    // batch/v1 Jobs orphan their pods unless told otherwise (the job strategy's DefaultGarbageCollectionPolicy); kubectl always says.
    defaultPropagation: "Orphan",
  },
);
