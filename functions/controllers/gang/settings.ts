/**
 * The gang scheduler's settings, from the Worker's variables (declared with their
 * defaults in `bindings.ts`; a deployment overrides them in wrangler.jsonc `vars`),
 * parsed once when its Durable Object starts. A bad value fails every call of the object
 * with a message naming the variable, rather than scheduling with a guess.
 */
import { z } from "zod";
import { isDns1123Subdomain } from "../../../protocol/kube/names.ts";
import { SCHEDULER_NAME } from "./core/group.ts";
import type { GangQueueOptions } from "./queue/index.ts";

/**
 * The variables, each with the value used when the Worker sets none: after how long a
 * group still short of pods gets a GangIncomplete Warning (0: never), the run time
 * assumed, for backfill only, of a group whose pods declare no activeDeadlineSeconds,
 * how long a group still arriving holds its place in the queue (0: it does not; ADR 0025),
 * the `spec.schedulerName` of the pods this scheduler places (ADR 0026), and after how
 * long a started group's binds are checked (those not seen bound are sent again).
 */
export const GANG_VAR_DEFAULTS = {
  EDGELOOP_GANG_ARRIVAL_TIMEOUT_SECONDS: 300,
  EDGELOOP_GANG_DEFAULT_DURATION_SECONDS: 3600,
  EDGELOOP_GANG_ARRIVAL_WINDOW_SECONDS: 30,
  EDGELOOP_GANG_SCHEDULER_NAME: SCHEDULER_NAME,
  EDGELOOP_GANG_BIND_CHECK_SECONDS: 10,
} as const;

type SecondsVar = "EDGELOOP_GANG_ARRIVAL_TIMEOUT_SECONDS" | "EDGELOOP_GANG_DEFAULT_DURATION_SECONDS" | "EDGELOOP_GANG_ARRIVAL_WINDOW_SECONDS";

const Seconds = (name: SecondsVar): z.ZodType<number> =>
  z.coerce
    .number({ error: `${name} must be a whole number of seconds` })
    .int(`${name} must be a whole number of seconds`)
    .min(0, `${name} must be 0 or more`)
    .max(7 * 86_400, `${name} must be at most a week (604800)`)
    .default(GANG_VAR_DEFAULTS[name]) as unknown as z.ZodType<number>;

const GangVars = z.object({
  EDGELOOP_GANG_ARRIVAL_TIMEOUT_SECONDS: Seconds("EDGELOOP_GANG_ARRIVAL_TIMEOUT_SECONDS"),
  EDGELOOP_GANG_DEFAULT_DURATION_SECONDS: Seconds("EDGELOOP_GANG_DEFAULT_DURATION_SECONDS"),
  EDGELOOP_GANG_ARRIVAL_WINDOW_SECONDS: Seconds("EDGELOOP_GANG_ARRIVAL_WINDOW_SECONDS"),
  // kube-apiserver validates a pod's schedulerName as a DNS subdomain: another name could never match.
  EDGELOOP_GANG_SCHEDULER_NAME: z
    .string({ error: "EDGELOOP_GANG_SCHEDULER_NAME must be a scheduler name" })
    .refine((name) => isDns1123Subdomain(name).length === 0, "EDGELOOP_GANG_SCHEDULER_NAME must be a DNS subdomain (lower case letters, digits, '-' and '.'), as a pod's spec.schedulerName")
    .default(SCHEDULER_NAME),
  // At least a second: the check repeats until every pod is seen bound, and 0 would spin the object's alarm.
  EDGELOOP_GANG_BIND_CHECK_SECONDS: z.coerce
    .number({ error: "EDGELOOP_GANG_BIND_CHECK_SECONDS must be a whole number of seconds" })
    .int("EDGELOOP_GANG_BIND_CHECK_SECONDS must be a whole number of seconds")
    .min(1, "EDGELOOP_GANG_BIND_CHECK_SECONDS must be 1 or more")
    .max(3_600, "EDGELOOP_GANG_BIND_CHECK_SECONDS must be at most an hour (3600)")
    .default(GANG_VAR_DEFAULTS.EDGELOOP_GANG_BIND_CHECK_SECONDS),
});

/** The queue's options from the Worker's environment; throws naming the variable that is wrong. */
export function gangSettings(env: Readonly<Record<string, unknown>>): GangQueueOptions {
  const parsed = GangVars.safeParse(Object.fromEntries(Object.keys(GANG_VAR_DEFAULTS).map((name) => [name, env[name]])));
  if (!parsed.success) throw new Error(parsed.error.issues.map((issue) => issue.message).join("; "));
  const vars = parsed.data;
  return {
    arrivalTimeoutSeconds: vars.EDGELOOP_GANG_ARRIVAL_TIMEOUT_SECONDS,
    defaultDurationSeconds: vars.EDGELOOP_GANG_DEFAULT_DURATION_SECONDS,
    arrivalWindowSeconds: vars.EDGELOOP_GANG_ARRIVAL_WINDOW_SECONDS,
    schedulerName: vars.EDGELOOP_GANG_SCHEDULER_NAME,
    bindCheckSeconds: vars.EDGELOOP_GANG_BIND_CHECK_SECONDS,
  };
}
