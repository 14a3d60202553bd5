/**
 * The admission chains: the steps a create, an update and a delete run through, in order.
 * The orchestrator (sim-cluster.ts) decodes the body and prepares the draft before, and
 * stores the outcome after. The order is kube-apiserver's as the sim has always followed
 * it: on create the kind's defaults come before the built-in plugins, on update after
 * them (a pod's stored priority and default tolerations kept, then its spec defaulted);
 * webhooks see the object defaulted, and validation sees what they made of it.
 */
import { defaultTolerationSeconds } from "./default-toleration-seconds.ts";
import { preconditions, refusedByKind } from "./delete-checks.ts";
import { namespaceLifecycle } from "./namespace-lifecycle.ts";
import { oneGlobalDefault, podPriority } from "./priority.ts";
import type { AdmissionStep } from "./step.ts";
import { defaulting, validation } from "./strategy.ts";
import { mutatingWebhooks, validatingWebhooks } from "./webhooks.ts";

/** The steps of a create. */
export const CREATE: readonly AdmissionStep[] = [namespaceLifecycle, defaulting, podPriority, defaultTolerationSeconds, mutatingWebhooks, validatingWebhooks, validation, oneGlobalDefault];

/** The steps of an update (status and finalize writes included: each step knows which it takes). */
export const UPDATE: readonly AdmissionStep[] = [podPriority, defaultTolerationSeconds, defaulting, mutatingWebhooks, validatingWebhooks, validation, oneGlobalDefault];

/** The steps of a delete. */
export const DELETE: readonly AdmissionStep[] = [namespaceLifecycle, refusedByKind, preconditions, validatingWebhooks];
