import assert from "node:assert/strict";
import { test } from "node:test";
import { SUBJECT_ACCESS_REVIEWS_PATH, TOKEN_REVIEWS_PATH, accessAllowed, reviewedUser, subjectAccessReview, tokenReview } from "../../protocol/kube/reviews.ts";
import { SIM_TOKEN, SIM_USER } from "../kubeconfig.ts";
import { ALLOW_REASON, SELF_SUBJECT_ACCESS_REVIEWS_PATH, SELF_SUBJECT_REVIEWS_PATH, SELF_SUBJECT_RULES_REVIEWS_PATH, isReview, review } from "./reviews.ts";

test("the sim authenticates the token of its kubeconfig and no other, and allows what its user asks", () => {
  assert.equal(isReview(TOKEN_REVIEWS_PATH) && isReview(SUBJECT_ACCESS_REVIEWS_PATH), true);
  assert.equal(isReview("/apis/authentication.k8s.io/v1/namespaces/x/tokenreviews"), false);
  const user = reviewedUser(review(TOKEN_REVIEWS_PATH, tokenReview(SIM_TOKEN)));
  assert.equal(user?.username, SIM_USER);
  assert.equal(reviewedUser(review(TOKEN_REVIEWS_PATH, tokenReview("guess"))), undefined);
  assert.equal(accessAllowed(review(SUBJECT_ACCESS_REVIEWS_PATH, subjectAccessReview(user ?? { username: "", groups: [] }, { verb: "list", group: "", resource: "pods", namespace: "" }))), true);
});

test("self reviews: kubectl auth can-i is allowed and told why, can-i --list gets every rule, whoami is the sim's admin", () => {
  const spec = { resourceAttributes: { verb: "delete", resource: "nodes" } };
  const access = review(SELF_SUBJECT_ACCESS_REVIEWS_PATH, { spec });
  assert.deepEqual([access.kind, access.spec, access.status], ["SelfSubjectAccessReview", spec, { allowed: true, reason: ALLOW_REASON }]);
  const rules = review(SELF_SUBJECT_RULES_REVIEWS_PATH, { spec: { namespace: "x" } });
  assert.deepEqual(rules.status, { resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }], nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }], incomplete: false });
  const self = review(SELF_SUBJECT_REVIEWS_PATH, {});
  assert.deepEqual([self.apiVersion, self.kind, self.status], ["authentication.k8s.io/v1", "SelfSubjectReview", { userInfo: { username: SIM_USER, groups: ["system:masters", "system:authenticated"] } }]);
});
