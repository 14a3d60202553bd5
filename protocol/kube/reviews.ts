/**
 * TokenReview (`authentication.k8s.io/v1`) and SubjectAccessReview
 * (`authorization.k8s.io/v1`): how a server that is not the API server asks it who a
 * bearer token belongs to and what that user may do — kube-rbac-proxy's way, and the
 * relay front's for APIs with readers. Pure: the bodies to POST, the statuses read back.
 */
import { z } from "zod";

/** Where TokenReviews are created. */
export const TOKEN_REVIEWS_PATH = "/apis/authentication.k8s.io/v1/tokenreviews";
/** Where SubjectAccessReviews are created. */
export const SUBJECT_ACCESS_REVIEWS_PATH = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

/** A user as the authenticator reports it (`authenticationv1.UserInfo`). */
export const UserInfo = z.object({
  username: z.string().default(""),
  uid: z.string().optional(),
  groups: z.array(z.string()).default([]),
  extra: z.record(z.string(), z.array(z.string())).optional(),
});
export type UserInfo = z.infer<typeof UserInfo>;

/** What is asked of the authorizer: a verb on a resource, in a namespace ("" for every namespace). */
export interface ResourceAttributes {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly namespace: string;
}

/** The TokenReview to create for `token`. */
export function tokenReview(token: string): Record<string, unknown> {
  return { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } };
}

const TokenReviewAnswer = z.object({
  status: z.object({ authenticated: z.boolean().optional(), user: UserInfo.optional(), error: z.string().optional() }).optional(),
});

/** The user a TokenReview's answer authenticates, or undefined when the token was not. */
export function reviewedUser(answer: unknown): UserInfo | undefined {
  const status = TokenReviewAnswer.safeParse(answer).data?.status;
  return status?.authenticated === true && status.user !== undefined && status.user.username !== "" ? status.user : undefined;
}

/** The SubjectAccessReview to create: may `user` do `attributes`? (An empty namespace asks for every namespace, as for a namespaced resource `kubectl get -A` does.) */
export function subjectAccessReview(user: UserInfo, attributes: ResourceAttributes): Record<string, unknown> {
  const spec: Record<string, unknown> = { user: user.username, groups: user.groups, resourceAttributes: { ...attributes } };
  if (user.uid !== undefined) spec["uid"] = user.uid;
  if (user.extra !== undefined) spec["extra"] = user.extra;
  return { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec };
}

const AccessAnswer = z.object({ status: z.object({ allowed: z.boolean().optional(), denied: z.boolean().optional() }).optional() });

/** Whether a SubjectAccessReview's answer allows (a missing or unreadable status does not). */
export function accessAllowed(answer: unknown): boolean {
  const status = AccessAnswer.safeParse(answer).data?.status;
  return status?.allowed === true && status.denied !== true;
}

/** Reads a TokenReview's `spec.token` (the sim's side), "" when absent. */
export function reviewedToken(review: unknown): string {
  return z.object({ spec: z.object({ token: z.string() }) }).safeParse(review).data?.spec.token ?? "";
}

/** A bearer token from an `Authorization` header value, or undefined when it carries none. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}
