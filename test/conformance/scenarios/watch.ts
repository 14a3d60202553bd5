/**
 * Lists and watches: selectors, paging, resuming from a resourceVersion, bookmarks, 410
 * Gone after compaction, and the boolean query parameters in every spelling a client
 * sends (Go's strconv.ParseBool: 1 t T TRUE true True, 0 f F FALSE false False).
 */
import type { RequestStep, Scenario } from "../scenario.ts";
import { configMap, NS } from "./objects.ts";

// Lists select by label where the scenario is about something else than what a namespace holds (kube-root-ca.crt: docs/sim-differences.md).
const seed: readonly RequestStep[] = [
  { method: "POST", path: `${NS}/configmaps`, body: configMap("a", { v: "1" }, { labels: { app: "web", tier: "front" } }), compare: "none" },
  { method: "POST", path: `${NS}/configmaps`, body: configMap("b", { v: "1" }, { labels: { app: "web", tier: "back" } }), compare: "none" },
  { method: "POST", path: `${NS}/configmaps`, body: configMap("c", { v: "1" }, { labels: { app: "db" } }), compare: "none" },
];

/** A watch from the resourceVersion `{rv}` that must replay the one change made after it. */
function resumed(spelling: string): RequestStep {
  return { name: `watch=${spelling}`, method: "GET", path: `${NS}/configmaps`, query: { watch: spelling, resourceVersion: "{rv}", labelSelector: "app=web" }, watch: { count: 1, timeoutMs: 2_000 } };
}

function listed(spelling: string): RequestStep {
  return { name: `watch=${spelling} is a list`, method: "GET", path: `${NS}/configmaps`, query: { watch: spelling, labelSelector: "app=web" }, watch: { count: 1, timeoutMs: 2_000 } };
}

export const watches: readonly Scenario[] = [
  {
    name: "list: label selectors",
    steps: [
      ...seed,
      ...["app=web", "app==web", "app,app!=web", "app in (web,db)", "app,app notin (web)", "tier", "app,!tier", "app=web,tier=back", "app=web,!tier", "tier in ()", "app=Not Valid"].map((selector): RequestStep => ({ name: `labelSelector ${selector}`, method: "GET", path: `${NS}/configmaps`, query: { labelSelector: selector } })),
    ],
  },
  {
    name: "list: field selectors",
    steps: [
      ...seed,
      ...["metadata.name=a", "metadata.name!=a", "metadata.namespace={ns}", "metadata.name=a,metadata.name=b", "spec.nodeName=x", "metadata.name==b"].map((selector): RequestStep => ({ name: `fieldSelector ${selector}`, method: "GET", path: `${NS}/configmaps`, query: { fieldSelector: selector, labelSelector: "app" } })),
      { name: "pods by spec.nodeName", method: "GET", path: `${NS}/pods`, query: { fieldSelector: "spec.nodeName=edge1" } },
      { name: "pods by status.phase in an unknown form", method: "GET", path: `${NS}/pods`, query: { fieldSelector: "status.phase in (Running)" } },
    ],
  },
  {
    name: "list: limit and continue",
    steps: [
      ...seed,
      { method: "GET", path: `${NS}/configmaps`, query: { limit: "2", labelSelector: "app" }, capture: { next: "metadata.continue" }, ignore: ["body.metadata.continue"] },
      { method: "GET", path: `${NS}/configmaps`, query: { limit: "2", labelSelector: "app", continue: "{next}" } },
      { name: "a continue token not from this server", method: "GET", path: `${NS}/configmaps`, query: { limit: "2", continue: "not-a-token" } },
      { name: "limit=0 is no limit", method: "GET", path: `${NS}/configmaps`, query: { limit: "0", labelSelector: "app" } },
      { name: "limit=-1", method: "GET", path: `${NS}/configmaps`, query: { limit: "-1", labelSelector: "app" } },
    ],
  },
  {
    name: "watch: every spelling of watch=true resumes a stream",
    steps: [
      { method: "POST", path: `${NS}/configmaps`, body: configMap("w", { v: "1" }, { labels: { app: "web" } }), capture: { rv: "metadata.resourceVersion" }, compare: "none" },
      { method: "PATCH", path: `${NS}/configmaps/w`, contentType: "application/merge-patch+json", body: { data: { v: "2" } }, compare: "none" },
      ...["true", "1", "t", "T", "TRUE", "True"].map(resumed),
    ],
  },
  {
    name: "watch: every spelling of watch=false is a list",
    steps: [
      { method: "POST", path: `${NS}/configmaps`, body: configMap("w", { v: "1" }, { labels: { app: "web" } }), capture: { rv: "metadata.resourceVersion" }, compare: "none" },
      { method: "PATCH", path: `${NS}/configmaps/w`, contentType: "application/merge-patch+json", body: { data: { v: "2" } }, compare: "none" },
      ...["false", "0", "FALSE", "False", "fAlSe"].map(listed), resumed("f"), resumed("F"), resumed("")],
  },
  {
    // kube-apiserver reads booleans with apimachinery's Convert_Slice_string_To_bool, not strconv.ParseBool: only 0 and false are false.
    name: "watch: spellings strconv.ParseBool refuses are true",
    steps: [
      { method: "POST", path: `${NS}/configmaps`, body: configMap("w", { v: "1" }, { labels: { app: "web" } }), capture: { rv: "metadata.resourceVersion" }, compare: "none" },
      { method: "PATCH", path: `${NS}/configmaps/w`, contentType: "application/merge-patch+json", body: { data: { v: "2" } }, compare: "none" },
      ...["yes", "on", "2"].map(resumed),
    ],
  },
  {
    name: "watch: resume sees modifications and deletions, selectors filter",
    steps: [
      ...seed.slice(0, 1).map((s) => ({ ...s, capture: { rv: "metadata.resourceVersion" } })),
      ...seed.slice(1),
      { method: "PATCH", path: `${NS}/configmaps/a`, contentType: "application/merge-patch+json", body: { metadata: { labels: { tier: "back" } } }, compare: "none" },
      { method: "DELETE", path: `${NS}/configmaps/b`, compare: "none" },
      { name: "all from rv", method: "GET", path: `${NS}/configmaps`, query: { watch: "true", resourceVersion: "{rv}" }, watch: { count: 4 } },
      { name: "tier=back from rv (a enters, b leaves)", method: "GET", path: `${NS}/configmaps`, query: { watch: "true", resourceVersion: "{rv}", labelSelector: "tier=back" }, watch: { count: 3 } },
      { name: "one object by name", method: "GET", path: `${NS}/configmaps`, query: { watch: "1", resourceVersion: "{rv}", fieldSelector: "metadata.name=a" }, watch: { count: 1 } },
      { name: "watch from 0 lists what is", method: "GET", path: `${NS}/configmaps`, query: { watch: "true", resourceVersion: "0", labelSelector: "app" }, watch: { count: 2 } },
    ],
  },
  {
    name: "watch: initial events end with a bookmark",
    steps: [
      ...seed,
      { name: "sendInitialEvents=true", method: "GET", path: `${NS}/configmaps`, query: { watch: "true", sendInitialEvents: "true", resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: "true", labelSelector: "app=web" }, watch: { count: 3 } },
      { name: "sendInitialEvents=1 allowWatchBookmarks=1", method: "GET", path: `${NS}/configmaps`, query: { watch: "1", sendInitialEvents: "1", resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: "1", labelSelector: "app=db" }, watch: { count: 2 } },
      { name: "sendInitialEvents without resourceVersionMatch", method: "GET", path: `${NS}/configmaps`, query: { watch: "true", sendInitialEvents: "true", allowWatchBookmarks: "true" }, watch: { count: 1 } },
    ],
  },
  {
    name: "watch: 410 Gone after compaction",
    steps: [
      { method: "POST", path: `${NS}/configmaps`, body: configMap("old", { a: "1" }, { labels: { app: "old" } }), capture: { rv: "metadata.resourceVersion" }, compare: "none" },
      { method: "PATCH", path: `${NS}/configmaps/old`, contentType: "application/merge-patch+json", body: { data: { a: "2" } }, compare: "none" },
      { method: "PATCH", path: `${NS}/configmaps/old`, contentType: "application/merge-patch+json", body: { data: { a: "3" } }, compare: "none" },
      { action: "compact" },
      { name: "watch from before the compaction", method: "GET", path: `${NS}/configmaps`, query: { watch: "true", resourceVersion: "{rv}", labelSelector: "app" }, watch: { count: 1 } },
      { name: "list at a compacted resourceVersion, exact", method: "GET", path: `${NS}/configmaps`, query: { resourceVersion: "{rv}", resourceVersionMatch: "Exact", labelSelector: "app" } },
    ],
  },
  {
    // After a restart kube-apiserver's watch cache starts at etcd's (compacted) revision: nothing older is served.
    name: "watch: 410 Gone after compaction and an API server restart",
    steps: [
      { method: "POST", path: `${NS}/configmaps`, body: configMap("old", { a: "1" }, { labels: { app: "old" } }), capture: { rv: "metadata.resourceVersion" }, compare: "none" },
      { method: "PATCH", path: `${NS}/configmaps/old`, contentType: "application/merge-patch+json", body: { data: { a: "2" } }, compare: "none" },
      { action: "restart" },
      { name: "watch from before the compaction", method: "GET", path: `${NS}/configmaps`, query: { watch: "true", resourceVersion: "{rv}" }, watch: { count: 1 } },
      { name: "list at a compacted resourceVersion, exact", method: "GET", path: `${NS}/configmaps`, query: { resourceVersion: "{rv}", resourceVersionMatch: "Exact", labelSelector: "app" } },
      { name: "list not older than it", method: "GET", path: `${NS}/configmaps`, query: { resourceVersion: "{rv}", resourceVersionMatch: "NotOlderThan", labelSelector: "app" } },
    ],
  },
];
