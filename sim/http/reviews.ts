/**
 * The review kinds the sim answers: TokenReview and SubjectAccessReview (a relay front
 * reviews the callers of an API with readers through them, ADR 0010), and the self
 * reviews kubectl sends — SelfSubjectAccessReview and SelfSubjectRulesReview (`kubectl
 * auth can-i`, `--list`) and SelfSubjectReview (`kubectl auth whoami`). The sim does no
 * authentication nor authorization of its own requests: it authenticates the one token its
 * kubeconfig carries (as that kubeconfig's admin, in `system:masters`) and no other, and
 * serves every request as that admin's (`kubectl auth whoami` names it) and allows every
 * request, which each access review's `reason` says.
 */
import { SUBJECT_ACCESS_REVIEWS_PATH, TOKEN_REVIEWS_PATH, reviewedToken } from "../../protocol/kube/reviews.ts";
import { asObj } from "../api/objects.ts";
import { SIM_TOKEN, SIM_USER } from "../kubeconfig.ts";

/** Where kubectl creates its self reviews (`kubectl auth can-i`, `can-i --list`, `whoami`). */
export const SELF_SUBJECT_ACCESS_REVIEWS_PATH = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
export const SELF_SUBJECT_RULES_REVIEWS_PATH = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";
export const SELF_SUBJECT_REVIEWS_PATH = "/apis/authentication.k8s.io/v1/selfsubjectreviews";

/** Why every access review allows: said in each answer's `reason`, so that `kubectl auth can-i` users learn it. */
export const ALLOW_REASON = "the sim authorizes every request: it runs no authorizer (RBAC objects are stored, not enforced)";

const AUTHENTICATION = "authentication.k8s.io/v1";
const AUTHORIZATION = "authorization.k8s.io/v1";
const PATHS = [TOKEN_REVIEWS_PATH, SUBJECT_ACCESS_REVIEWS_PATH, SELF_SUBJECT_ACCESS_REVIEWS_PATH, SELF_SUBJECT_RULES_REVIEWS_PATH, SELF_SUBJECT_REVIEWS_PATH];

/** Whether a POST of `path` creates a review. */
export function isReview(path: string): boolean {
  return PATHS.includes(path);
}

/** The sim's admin: who its kubeconfig's token is, and who every caller is to the sim, which checks no request. */
function admin(): Record<string, unknown> {
  return { username: SIM_USER, groups: ["system:masters", "system:authenticated"] };
}

/** The created review (its status filled in) of a POST of `path` ({@link isReview}). */
export function review(path: string, body: unknown): Record<string, unknown> {
  const spec = asObj(asObj(body)["spec"]);
  switch (path) {
    case TOKEN_REVIEWS_PATH: {
      const authenticated = reviewedToken(body) === SIM_TOKEN;
      const status = authenticated ? { authenticated, user: admin(), audiences: [] } : { authenticated, error: "the sim authenticates only the token of its kubeconfig" };
      return { apiVersion: AUTHENTICATION, kind: "TokenReview", metadata: {}, spec, status };
    }
    case SELF_SUBJECT_REVIEWS_PATH:
      return { apiVersion: AUTHENTICATION, kind: "SelfSubjectReview", metadata: {}, status: { userInfo: admin() } };
    case SELF_SUBJECT_ACCESS_REVIEWS_PATH:
      return { apiVersion: AUTHORIZATION, kind: "SelfSubjectAccessReview", metadata: {}, spec, status: { allowed: true, reason: ALLOW_REASON } };
    case SELF_SUBJECT_RULES_REVIEWS_PATH:
      return { apiVersion: AUTHORIZATION, kind: "SelfSubjectRulesReview", metadata: {}, spec, status: rulesStatus() };
    default:
      return { apiVersion: AUTHORIZATION, kind: "SubjectAccessReview", metadata: {}, spec, status: { allowed: true, reason: ALLOW_REASON } };
  }
}

/** Every verb on every resource and every non-resource URL: what `system:masters` may do (kubectl auth can-i --list). */
function rulesStatus(): Record<string, unknown> {
  return {
    resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
    nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
    incomplete: false,
  };
}
