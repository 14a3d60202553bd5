/**
 * A Job's pod template as an announcement of the group its pods will form (ADR 0025):
 * the queue learns of the group when the Job is created, before the Job controller has
 * made any of its pods, so the group's place in the queue is the Job's.
 */
import type { Announcement } from "./hold.ts";
import { GROUP_NAME_LABEL } from "./group.ts";
import { asObject, asString, dig } from "./read.ts";
import { parsePod, UNKNOWN_TIME } from "./records.ts";

/** What a Job says of its group: its key, and the announcement while pods may still come (not when suspended). */
export interface JobGroup {
  readonly uid: string;
  readonly key: string;
  readonly announcement: Announcement | undefined;
}

/** The group a Job's pods will form, if its template asks for our scheduler (`schedulerName`, default `fluxnetes`) and names a group; undefined otherwise. */
export function jobGroup(job: unknown, schedulerName?: string): JobGroup | undefined {
  const uid = asString(dig(job, "metadata", "uid")) ?? "";
  const namespace = asString(dig(job, "metadata", "namespace")) || "default";
  const name = asString(dig(job, "metadata", "name")) ?? "";
  const template = asObject(dig(job, "spec", "template"));
  const labels = asObject(dig(template, "metadata", "labels"));
  if (uid === "" || template === undefined || asString(labels?.[GROUP_NAME_LABEL]) === undefined) return undefined;
  const creationTimestamp = asString(dig(job, "metadata", "creationTimestamp"));
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { namespace, name: `${name}-template`, uid: `template-${uid}`, labels, creationTimestamp }, spec: template["spec"], status: { phase: "Pending" } };
  const record = parsePod(pod, schedulerName);
  // A template whose size label is refused announces nothing: its pods will be refused.
  if (!record.ours || record.group.sizeRefused !== undefined) return undefined;
  const suspended = dig(job, "spec", "suspend") === true;
  const createdAt = record.createdAt === UNKNOWN_TIME ? 0 : record.createdAt;
  return { uid, key: record.group.key, announcement: suspended ? undefined : { key: record.group.key, size: record.group.size, template: record, createdAt } };
}
