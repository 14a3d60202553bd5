/**
 * Who may read an API that declares `readers` (ADR 0010, "Read APIs: who sees what"): the
 * caller's bearer token is reviewed by the API server (TokenReview), then what that user
 * may do (SubjectAccessReviews): a namespace the request names must be allowed (else 403
 * naming the field), and of an answer across namespaces the caller keeps only the items
 * of the namespaces it is allowed. No token, or one the API server does not
 * authenticate: 401. The relay decides nothing itself: the cluster's RBAC does.
 */
import type { ApiReaders } from "../../protocol/index.ts";
import { bearerToken, type UserInfo } from "../../protocol/kube/reviews.ts";
import type { ApiReply } from "./api.ts";

/** What the front asks the API server about a caller. */
export interface CallerReviews {
  /** The user `token` authenticates as, or undefined when the API server does not authenticate it. Throws when it cannot be asked. */
  authenticate(token: string): Promise<UserInfo | undefined>;
  /** Whether `user` may `readers.verb` `readers.resource` in `namespace` ("": in every namespace). Throws when it cannot be asked. */
  allowed(user: UserInfo, readers: ApiReaders, namespace: string): Promise<boolean>;
}

/** The most distinct namespaces of one answer reviewed; items of others are left out (fail closed). */
export const MAX_REVIEWED_NAMESPACES = 256;
/** How many SubjectAccessReviews of one answer are in flight at once. */
const REVIEW_CONCURRENCY = 16;

/** What a reader may see: everything, the one namespace it named (and may read), or the items of the namespaces a review allows. */
export type Visibility = { readonly kind: "all" } | { readonly kind: "named"; readonly namespace: string } | { readonly kind: "reviewed"; readonly user: UserInfo };

/** An error reply naming the field. */
function refuse(status: number, code: string, message: string, path: string): ApiReply {
  return { status, body: { error: { code, message, path } } };
}

/**
 * Admits a reader before its request is forwarded: who it is, and whether it sees every
 * namespace or must have the answer filtered. `namespace` is the one the request names
 * (`path`: the field it was read from).
 */
export async function admitReader(reviews: CallerReviews, readers: ApiReaders, authorization: string | undefined, named: { readonly namespace: string; readonly path: string } | undefined): Promise<{ readonly visibility: Visibility } | { readonly reply: ApiReply }> {
  const what = `${readers.verb} ${readers.group === "" ? "" : `${readers.group}/`}${readers.resource}`;
  const token = bearerToken(authorization);
  if (token === undefined) return { reply: refuse(401, "unauthorized", `this API answers callers who send "Authorization: Bearer <token>" (a ServiceAccount's or a user's token) and may ${what}`, "headers.authorization") };
  try {
    const user = await reviews.authenticate(token);
    if (user === undefined) return { reply: refuse(401, "unauthorized", "the API server does not authenticate this bearer token", "headers.authorization") };
    if (named !== undefined) {
      if (!(await reviews.allowed(user, readers, named.namespace))) return { reply: refuse(403, "forbidden", `${user.username} may not ${what} in namespace ${named.namespace}`, named.path) };
      return { visibility: { kind: "named", namespace: named.namespace } };
    }
    return { visibility: (await reviews.allowed(user, readers, "")) ? { kind: "all" } : { kind: "reviewed", user } };
  } catch (error) {
    return { reply: refuse(503, "review_unavailable", `the API server could not review the caller: ${String(error)}`, "") };
  }
}

/**
 * The reply a reader who may not see every namespace gets: the answer's `items` kept only
 * in the namespace it named, or where a review allows their namespace (an item without
 * one is left out). Another reply (an error, a body without the array) goes as it is.
 */
export async function visibleReply(reviews: CallerReviews, readers: ApiReaders, visibility: Visibility, reply: ApiReply): Promise<ApiReply> {
  if (visibility.kind === "all" || typeof reply.body !== "object" || reply.body === null || Array.isArray(reply.body)) return reply;
  const body = reply.body as Record<string, unknown>;
  const items = body[readers.items];
  if (!Array.isArray(items)) return reply;
  const namespaceOf = (item: unknown): string | undefined => {
    const namespace = typeof item === "object" && item !== null ? (item as { namespace?: unknown }).namespace : undefined;
    return typeof namespace === "string" && namespace !== "" ? namespace : undefined;
  };
  const keep = (allowed: ReadonlySet<string>): ApiReply => ({ ...reply, body: { ...body, [readers.items]: items.filter((item) => allowed.has(namespaceOf(item) ?? "")) } });
  if (visibility.kind === "named") return keep(new Set([visibility.namespace]));
  const namespaces = [...new Set(items.map(namespaceOf).filter((n): n is string => n !== undefined))].sort().slice(0, MAX_REVIEWED_NAMESPACES);
  const allowed = new Set<string>();
  try {
    for (let start = 0; start < namespaces.length; start += REVIEW_CONCURRENCY) {
      const chunk = namespaces.slice(start, start + REVIEW_CONCURRENCY);
      const answers = await Promise.all(chunk.map((namespace) => reviews.allowed(visibility.user, readers, namespace)));
      chunk.forEach((namespace, i) => answers[i] === true && allowed.add(namespace));
    }
  } catch (error) {
    return refuse(503, "review_unavailable", `the API server could not review the caller: ${String(error)}`, "");
  }
  return keep(allowed);
}
