/**
 * Requests as kubectl and the client libraries shape them: Table output (`kubectl get`),
 * field validation, delete options in the body or the query (the deprecated
 * `orphanDependents` too), a watch's `timeoutSeconds`.
 */
import type { Scenario } from "../scenario.ts";
import { configMap, NS, ownerRef } from "./objects.ts";

/** A column's description is its field's OpenAPI documentation, which the sim does not carry (kubectl shows none of it). */
const DESCRIPTIONS = ["body.columnDefinitions.*.description"];

/** What kubectl get sends. */
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

export const clients: readonly Scenario[] = [
  {
    name: "kubectl get: tables",
    steps: [
      { method: "POST", path: `${NS}/configmaps`, body: configMap("t1", { a: "1", b: "2" }, { labels: { app: "t" } }), compare: "none" },
      { method: "POST", path: `${NS}/services`, body: { apiVersion: "v1", kind: "Service", metadata: { name: "svc", labels: { app: "t" } }, spec: { selector: { app: "t" }, ports: [{ port: 80 }] } }, compare: "none" },
      { name: "configmaps as a Table", method: "GET", path: `${NS}/configmaps`, query: { limit: "500", labelSelector: "app=t" }, accept: TABLE, ignore: DESCRIPTIONS },
      { name: "one configmap as a Table", method: "GET", path: `${NS}/configmaps/t1`, accept: TABLE, ignore: DESCRIPTIONS },
      { name: "services as a Table", method: "GET", path: `${NS}/services`, query: { limit: "500" }, accept: TABLE, ignore: DESCRIPTIONS },
      { name: "a missing one as a Table", method: "GET", path: `${NS}/configmaps/nope`, accept: TABLE },
    ],
  },
  {
    name: "field validation on built-in kinds",
    steps: [
      { name: "Strict: an unknown field", method: "POST", path: `${NS}/configmaps`, query: { fieldValidation: "Strict", fieldManager: "kubectl-create" }, body: { ...configMap("s"), extra: 1 } },
      { name: "Strict: a duplicate field", method: "POST", path: `${NS}/configmaps`, query: { fieldValidation: "Strict" }, contentType: "application/json", body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d","name":"d"}}' },
      { name: "Warn: dropped", method: "POST", path: `${NS}/configmaps`, query: { fieldValidation: "Warn" }, body: { ...configMap("w"), extra: 1 } },
      { name: "Ignore: dropped", method: "POST", path: `${NS}/configmaps`, query: { fieldValidation: "Ignore" }, body: { ...configMap("i"), extra: 1 } },
      { name: "an unknown fieldValidation", method: "POST", path: `${NS}/configmaps`, query: { fieldValidation: "Loose" }, body: configMap("l") },
      { name: "a body of the wrong kind", method: "POST", path: `${NS}/configmaps`, body: { apiVersion: "v1", kind: "Secret", metadata: { name: "wrong" } } },
      { name: "a body in another namespace", method: "POST", path: `${NS}/configmaps`, body: { ...configMap("elsewhere"), metadata: { name: "elsewhere", namespace: "other" } } },
    ],
  },
  {
    name: "delete options: body, query, orphanDependents",
    steps: [
      { method: "POST", path: `${NS}/configmaps`, body: configMap("owner"), capture: { owner: "metadata.uid" }, compare: "none" },
      { method: "POST", path: `${NS}/configmaps`, body: configMap("dependent", { a: "1" }, { ownerReferences: [ownerRef("ConfigMap", "owner", "owner")] }), compare: "none" },
      { name: "orphanDependents=true in the query", method: "DELETE", path: `${NS}/configmaps/owner`, query: { orphanDependents: "true" } },
      { name: "dependent until its ownerReferences are gone", method: "GET", path: `${NS}/configmaps/dependent`, until: { path: "metadata.ownerReferences", equals: undefined } },
      { name: "a uid precondition that fails", method: "DELETE", path: `${NS}/configmaps/dependent`, body: { apiVersion: "v1", kind: "DeleteOptions", preconditions: { uid: "00000000-0000-0000-0000-000000000000" } } },
      { name: "both propagationPolicy and orphanDependents", method: "DELETE", path: `${NS}/configmaps/dependent`, body: { apiVersion: "v1", kind: "DeleteOptions", propagationPolicy: "Background", orphanDependents: false } },
      { name: "an unknown propagationPolicy", method: "DELETE", path: `${NS}/configmaps/dependent`, query: { propagationPolicy: "Sideways" } },
    ],
  },
  {
    name: "watch: timeoutSeconds ends the stream",
    steps: [
      { method: "POST", path: `${NS}/configmaps`, body: configMap("t", {}, { labels: { app: "t" } }), capture: { rv: "metadata.resourceVersion" }, compare: "none" },
      { name: "timeoutSeconds=1 from now", method: "GET", path: `${NS}/configmaps`, query: { watch: "true", resourceVersion: "{rv}", timeoutSeconds: "1", labelSelector: "app" }, watch: { count: 1, timeoutMs: 4_000 } },
      { name: "timeoutSeconds=abc", method: "GET", path: `${NS}/configmaps`, query: { watch: "true", timeoutSeconds: "abc", labelSelector: "app" }, watch: { count: 1 } },
      { name: "a watch of one object by name in the path", method: "GET", path: `${NS}/configmaps`, query: { watch: "1", fieldSelector: "metadata.name=t", resourceVersion: "0" }, watch: { count: 1 } },
    ],
  },
];
