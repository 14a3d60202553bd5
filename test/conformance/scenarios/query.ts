/**
 * Query parameters that do not decode (400, worded as strconv.ParseInt) or are not allowed
 * together (422 about ListOptions, CreateOptions, PatchOptions, PodLogOptions); Secret
 * types kube-apiserver refuses; the `default` ServiceAccount of a new namespace and
 * NotFound's details (issue 27). sim/http/query-parameters.test.ts lists the same rows
 * and more against the sim alone.
 */
import type { RequestStep, Scenario } from "../scenario.ts";
import { configMap, NS } from "./objects.ts";

const list = (name: string, query: Record<string, string>): RequestStep => ({ name, method: "GET", path: `${NS}/configmaps`, query: { labelSelector: "app=q", ...query } });
const logs = (name: string, query: Record<string, string>): RequestStep => ({ name, method: "GET", path: `${NS}/pods/none/log`, query });
const secret = (name: string, type: string, data: Record<string, string>, annotations: Record<string, string> = {}): RequestStep => ({
  name: `Secret ${type}: ${name}`,
  method: "POST",
  path: `${NS}/secrets`,
  body: { apiVersion: "v1", kind: "Secret", metadata: { name: name.replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, ""), annotations }, type, data },
});
const b64 = (text: string): string => Buffer.from(text).toString("base64");

export const queries: readonly Scenario[] = [
  {
    name: "query parameters: ListOptions decoded and validated",
    steps: [
      { method: "POST", path: `${NS}/configmaps`, body: configMap("q", { v: "1" }, { labels: { app: "q" } }), compare: "none" },
      list("limit=abc", { limit: "abc" }),
      list("limit empty", { limit: "" }),
      list("limit=1.5", { limit: "1.5" }),
      list("limit=+2 (a plus, not a space)", { limit: "+2" }),
      list("limit beyond int64", { limit: "9223372036854775808" }),
      list("timeoutSeconds=abc on a list", { timeoutSeconds: "abc" }),
      list("sendInitialEvents on a list", { sendInitialEvents: "false" }),
      list("resourceVersionMatch without resourceVersion", { resourceVersionMatch: "Exact" }),
      list("resourceVersionMatch unsupported", { resourceVersionMatch: "exact", resourceVersion: "1" }),
      list("resourceVersionMatch Exact at 0", { resourceVersionMatch: "Exact", resourceVersion: "0" }),
      list("resourceVersionMatch on a watch without sendInitialEvents", { watch: "true", resourceVersionMatch: "NotOlderThan" }),
      list("pretty=true", { pretty: "true" }),
      list("resourceVersion=abc", { resourceVersion: "abc" }),
      list("resourceVersion=abc, NotOlderThan", { resourceVersion: "abc", resourceVersionMatch: "NotOlderThan" }),
      { name: "watch from resourceVersion=abc", method: "GET", path: `${NS}/configmaps`, query: { watch: "true", resourceVersion: "abc", labelSelector: "app=q" }, watch: { count: 1 } },
      { name: "get at resourceVersion=abc", method: "GET", path: `${NS}/configmaps/q`, query: { resourceVersion: "abc" } },
      { name: "includeObject unknown, as a Table", method: "GET", path: `${NS}/configmaps`, query: { includeObject: "Everything", labelSelector: "app=q" }, accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" },
      list("includeObject unknown, no Table", { includeObject: "Everything" }),
    ],
  },
  {
    name: "query parameters: write options and pod log options",
    steps: [
      { name: "fieldManager too long", method: "POST", path: `${NS}/configmaps`, query: { fieldManager: "m".repeat(129) }, body: configMap("fm") },
      { name: "fieldManager not printable", method: "POST", path: `${NS}/configmaps`, query: { fieldManager: "a\tb" }, body: configMap("fm") },
      { name: "force on a merge patch", method: "PATCH", path: `${NS}/configmaps/fm`, query: { force: "true" }, contentType: "application/merge-patch+json", body: {} },
      { name: "gracePeriodSeconds=abc", method: "DELETE", path: `${NS}/configmaps/fm`, query: { gracePeriodSeconds: "abc" } },
      { name: "gracePeriodSeconds empty", method: "DELETE", path: `${NS}/configmaps/fm`, query: { gracePeriodSeconds: "" } },
      { name: "propagationPolicy empty", method: "DELETE", path: `${NS}/configmaps/fm`, query: { propagationPolicy: "" } },
      { name: "dryRun=all", method: "POST", path: `${NS}/configmaps`, query: { dryRun: "all" }, body: configMap("dry") },
      { name: "dryRun empty", method: "POST", path: `${NS}/configmaps`, query: { dryRun: "" }, body: configMap("dry") },
      { name: "fieldValidation empty", method: "POST", path: `${NS}/configmaps`, query: { fieldValidation: "", dryRun: "All" }, body: configMap("fv") },
      { name: "an apply without fieldManager", method: "PATCH", path: `${NS}/configmaps/fm`, contentType: "application/apply-patch+yaml", body: configMap("fm") },
      logs("tailLines=ten", { tailLines: "ten" }),
      logs("tailLines=-1", { tailLines: "-1" }),
      logs("limitBytes=0", { limitBytes: "0" }),
      logs("sinceSeconds=0", { sinceSeconds: "0" }),
      logs("sinceSeconds and sinceTime", { sinceSeconds: "5", sinceTime: "2026-01-01T00:00:00Z" }),
    ],
  },
  {
    // tls and a missing dockerconfigjson key: core.ts "secrets: types validated".
    name: "secrets: service-account-token, docker JSON, basic-auth and ssh-auth rules",
    steps: [
      secret("sa token without account", "kubernetes.io/service-account-token", {}),
      secret("dockercfg not json", "kubernetes.io/dockercfg", { ".dockercfg": b64("abc") }),
      secret("dockerconfigjson an array", "kubernetes.io/dockerconfigjson", { ".dockerconfigjson": b64("[]") }),
      secret("basic auth neither key", "kubernetes.io/basic-auth", {}),
      secret("basic auth empty password", "kubernetes.io/basic-auth", { password: "" }),
      secret("ssh auth empty key", "kubernetes.io/ssh-auth", { "ssh-privatekey": "" }),
    ],
  },
  {
    // deletecollection's answer: writes.ts "deletecollection answers the deleted list".
    name: "a namespace's default ServiceAccount; NotFound's details",
    steps: [
      { name: "the default ServiceAccount", method: "GET", path: `${NS}/serviceaccounts/default`, until: { status: 200 } },
      { name: "a missing ServiceAccount", method: "GET", path: `${NS}/serviceaccounts/nope` },
      { name: "a missing Deployment", method: "GET", path: "/apis/apps/v1/namespaces/{ns}/deployments/nope" },
    ],
  },
];
