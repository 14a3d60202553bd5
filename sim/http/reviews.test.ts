import assert from "node:assert/strict";
import { test } from "node:test";
import { SUBJECT_ACCESS_REVIEWS_PATH, TOKEN_REVIEWS_PATH, accessAllowed, reviewedUser, subjectAccessReview, tokenReview } from "../../protocol/kube/reviews.ts";
import { SIM_TOKEN, SIM_USER } from "../kubeconfig.ts";
import { isReview, review } from "./reviews.ts";

test("the sim authenticates the token of its kubeconfig and no other, and allows what its user asks", () => {
  assert.equal(isReview(TOKEN_REVIEWS_PATH) && isReview(SUBJECT_ACCESS_REVIEWS_PATH), true);
  assert.equal(isReview("/apis/authentication.k8s.io/v1/namespaces/x/tokenreviews"), false);
  const user = reviewedUser(review(TOKEN_REVIEWS_PATH, tokenReview(SIM_TOKEN)));
  assert.equal(user?.username, SIM_USER);
  assert.equal(reviewedUser(review(TOKEN_REVIEWS_PATH, tokenReview("guess"))), undefined);
  assert.equal(accessAllowed(review(SUBJECT_ACCESS_REVIEWS_PATH, subjectAccessReview(user ?? { username: "", groups: [] }, { verb: "list", group: "", resource: "pods", namespace: "" }))), true);
});
