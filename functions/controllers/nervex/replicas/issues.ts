/** Turning a zod failure into the 400 message of the replicas API, naming the field. */
import type { z } from "zod";

/**
 * `<field path>: <problem>` of the first issue, the path dot-joined (`learners.gpus`,
 * `collectors.0`); `whole` names the input itself when the issue is at its root.
 */
export function describeIssue(error: z.ZodError, whole: string): string {
  const issue = error.issues[0];
  const path = (issue?.path ?? []).map(String).join(".");
  return `${path === "" ? whole : path}: ${issue?.message ?? "invalid"}`;
}
