/**
 * TokenReview and SubjectAccessReview as the sim answers them (a relay front reviews the
 * callers of an API with readers through them, ADR 0010). The sim does no authentication
 * nor authorization of its own requests: it authenticates the one token its kubeconfig
 * carries (as that kubeconfig's admin, in `system:masters`) and no other, and allows
 * every request of a user it authenticated, as it serves every request.
 */
import { SUBJECT_ACCESS_REVIEWS_PATH, TOKEN_REVIEWS_PATH, reviewedToken } from "../../protocol/kube/reviews.ts";
import { asObj } from "../api/objects.ts";
import { SIM_TOKEN, SIM_USER } from "../kubeconfig.ts";

/** Whether a POST of `path` creates a review. */
export function isReview(path: string): boolean {
  return path === TOKEN_REVIEWS_PATH || path === SUBJECT_ACCESS_REVIEWS_PATH;
}

/** The created review (its status filled in) of a POST of `path` ({@link isReview}). */
export function review(path: string, body: unknown): Record<string, unknown> {
  if (path === TOKEN_REVIEWS_PATH) {
    const authenticated = reviewedToken(body) === SIM_TOKEN;
    const status = authenticated ? { authenticated, user: { username: SIM_USER, groups: ["system:masters", "system:authenticated"] }, audiences: [] } : { authenticated, error: "the sim authenticates only the token of its kubeconfig" };
    return { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", metadata: {}, spec: asObj(asObj(body)["spec"]), status };
  }
  return { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", metadata: {}, spec: asObj(asObj(body)["spec"]), status: { allowed: true, reason: "the sim authorizes every request" } };
}
