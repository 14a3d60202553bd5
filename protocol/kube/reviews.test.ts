import assert from "node:assert/strict";
import { test } from "node:test";
import { accessAllowed, bearerToken, reviewedToken, reviewedUser, subjectAccessReview, tokenReview } from "./reviews.ts";

test("a bearer token from an Authorization header: the scheme in any case, one token, nothing else", () => {
  assert.equal(bearerToken("Bearer abc.def"), "abc.def");
  assert.equal(bearerToken("bearer abc"), "abc");
  assert.equal(bearerToken("Basic dXNlcjpwdw=="), undefined);
  assert.equal(bearerToken("Bearer a b"), undefined);
  assert.equal(bearerToken(undefined), undefined);
});

test("a TokenReview authenticates only with a user named; a SubjectAccessReview allows only when allowed and not denied", () => {
  assert.deepEqual(tokenReview("t"), { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: "t" } });
  assert.equal(reviewedToken(tokenReview("t")), "t");
  const user = { username: "system:serviceaccount:ml:reader", uid: "u1", groups: ["system:serviceaccounts"] };
  assert.deepEqual(reviewedUser({ status: { authenticated: true, user } }), user);
  assert.equal(reviewedUser({ status: { authenticated: false, error: "invalid bearer token" } }), undefined);
  assert.equal(reviewedUser({ status: { authenticated: true, user: { username: "" } } }), undefined);
  assert.equal(reviewedUser("not an object"), undefined);
  assert.deepEqual(subjectAccessReview(user, { verb: "list", group: "", resource: "pods", namespace: "" }), {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    spec: { user: user.username, groups: user.groups, uid: "u1", resourceAttributes: { verb: "list", group: "", resource: "pods", namespace: "" } },
  });
  assert.equal(accessAllowed({ status: { allowed: true } }), true);
  assert.equal(accessAllowed({ status: { allowed: true, denied: true } }), false);
  assert.equal(accessAllowed({ status: { allowed: false } }), false);
  assert.equal(accessAllowed({}), false);
});
