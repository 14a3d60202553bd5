/**
 * The NerveXJob admission webhooks, as upstream's: a mutating one that defaults
 * `cleanPodPolicy` to `Running`, and a validating one that refuses any other value than
 * `None`, `Running` and `ALL`. Both on CREATE and UPDATE, failurePolicy Fail.
 */
import type { AdmissionRequest, AdmissionResponse } from "../../../protocol/index.ts";
import type { Webhook } from "../../kit/controller.ts";
import { allow, deny, patchWith } from "../../kit/admission.ts";
import { NERVEX_GROUP, NERVEX_VERSION } from "./group.ts";
import { CleanPodPolicy } from "./schema.ts";

/** What both webhooks see: NerveXJob creates and updates. */
const NERVEXJOB_WRITES = [{ operations: ["CREATE" as const, "UPDATE" as const], apiGroups: [NERVEX_GROUP], apiVersions: [NERVEX_VERSION], resources: ["nervexjobs"] }];

/** The policy a job gets when it names none. */
export const DEFAULT_CLEAN_POD_POLICY: CleanPodPolicy = "Running";

function specOf(request: AdmissionRequest): Record<string, unknown> | undefined {
  const spec = request.object?.["spec"];
  return typeof spec === "object" && spec !== null && !Array.isArray(spec) ? (spec as Record<string, unknown>) : undefined;
}

/** Mutating: an absent or empty `cleanPodPolicy` becomes `Running`. */
export const defaultsWebhook: Webhook = {
  spec: { name: "nervexjob-defaults", type: "mutating", rules: NERVEXJOB_WRITES, failurePolicy: "Fail", timeoutSeconds: 10, related: [] },
  review(request: AdmissionRequest): AdmissionResponse {
    const spec = specOf(request);
    // Without a spec there is nothing to default: the CRD schema refuses the object.
    if (!spec) return allow(request);
    const value = spec["cleanPodPolicy"];
    if (value !== undefined && value !== null && value !== "") return allow(request);
    // `add` on a member that exists (an empty string, a null) replaces it; on an absent one it adds it.
    return patchWith(request, [{ op: "add", path: "/spec/cleanPodPolicy", value: DEFAULT_CLEAN_POD_POLICY }]);
  },
};

/** The refusal message, as the API server words an enum violation. */
export function unsupportedPolicyMessage(value: unknown): string {
  const supported = [...CleanPodPolicy.options].sort().map((v) => JSON.stringify(v)).join(", ");
  return `spec.cleanPodPolicy: Unsupported value: ${JSON.stringify(value) ?? String(value)}: supported values: ${supported}`;
}

/** Validating: any `cleanPodPolicy` but `None`, `Running` and `ALL` is refused, naming the value and those allowed. */
export const validateWebhook: Webhook = {
  spec: { name: "nervexjob-validate", type: "validating", rules: NERVEXJOB_WRITES, failurePolicy: "Fail", timeoutSeconds: 10, related: [] },
  review(request: AdmissionRequest): AdmissionResponse {
    const value = specOf(request)?.["cleanPodPolicy"];
    // Absent: the mutating webhook has defaulted it (or the spec is missing, which the schema refuses).
    if (value === undefined || CleanPodPolicy.safeParse(value).success) return allow(request);
    return deny(request, unsupportedPolicyMessage(value));
  },
};
