/** Test support: the API server's reviews of callers, from a table of tokens and the namespaces each may read ("*": every one). */
import type { UserInfo } from "../../../protocol/kube/reviews.ts";
import type { CallerReviews } from "../readers.ts";

/** Reviews where token `t` authenticates user `t`, allowed in `namespaces[t]` only; other tokens are not authenticated. */
export function fakeReviews(namespaces: Readonly<Record<string, readonly string[]>>): CallerReviews {
  return {
    authenticate: (token) => Promise.resolve(namespaces[token] === undefined ? undefined : ({ username: token, groups: ["system:authenticated"] } satisfies UserInfo)),
    allowed: (user, _readers, namespace) => {
      const may = namespaces[user.username] ?? [];
      return Promise.resolve(may.includes("*") || (namespace !== "" && may.includes(namespace)));
    },
  };
}
