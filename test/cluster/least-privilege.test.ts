/**
 * Least privilege, proven: every (verb, group, resource, subresource) the relay's
 * ServiceAccount used during a whole `npm run test:cluster` run, read from the API
 * servers' audit logs, against what its rendered ClusterRole and leader-election Role
 * grant. Nothing used may be missing (nor refused: a 403 fails), and nothing granted may
 * go unused, except what {@link UNUSED_ON_PURPOSE} lists with the reason and the test
 * that exercises it. Runs last in `npm run test:cluster` (EDGELOOP_CLUSTER_RUN_DIR holds
 * every control plane's state folder); elsewhere it has nothing to read.
 */
import assert from "node:assert/strict";
import { existsSync, globSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createRegistry } from "../../functions/registry.ts";
import { loadControllers } from "../../scripts/lib/controllers.ts";
import { installObjects, NAME } from "../../scripts/lib/install/objects.ts";
import { FIXTURE_CONTROLLERS } from "../e2e/harness.ts";

const RUN_DIR = process.env.EDGELOOP_CLUSTER_RUN_DIR;
/** Set by test:cluster when every suite ran (no FILTER): only then is an unused grant a finding. */
const FULL_RUN = process.env.EDGELOOP_CLUSTER_FULL_RUN === "1";
const NAMESPACE = "edgeloop";
const RELAY_USER = `system:serviceaccount:${NAMESPACE}:${NAME}`;

/** Grants no run exercises on purpose: `verb group/resource` → why, and which test covers the path. */
const UNUSED_ON_PURPOSE: Readonly<Record<string, string>> = {
  "create autoscaling/horizontalpodautoscalers": "Sedna JI's `hpa` (upstream field, unset in the upstream fixture): jointinference/reconcile.test.ts 'hpa: an autoscaling/v2 HPA hpa-<deployment> when set, deleted when removed'",
  "patch autoscaling/horizontalpodautoscalers": "Sedna JI's `hpa` changed: the same test",
  "delete autoscaling/horizontalpodautoscalers": "Sedna JI's `hpa` removed: the same test",
  "delete apps/deployments": "Sedna JI: a Deployment it controls under a name no longer wanted: jointinference/reconcile.test.ts 'a Deployment we control under a name no longer wanted ... is removed'",
  "patch core/services": "Sedna JI/FL: a Service whose spec-hash is not the one wanted is patched in place: jointinference/reconcile.test.ts 'a Service whose spec-hash is not the one wanted ... is patched in place, once'",
  "get jobset.x-k8s.io/jobsets": "gang: a JobSet as a gang's root owner, read at its deadline; no JobSet controller on the test clusters and no test exercises it yet (reported)",
  "delete jobset.x-k8s.io/jobsets": "gang: a JobSet root owner deleted at the deadline; as above (reported)",
};

/** Refusals a suite provokes on purpose: `verb group/resource` → the test. */
const REFUSED_ON_PURPOSE: Readonly<Record<string, string>> = {
  "create core/secrets": "test/cluster/installed.test.ts: a refusal is said once, with the server's message (the relay is granted no Secrets)",
};

interface AuditEvent {
  readonly user?: { readonly username?: string };
  readonly verb?: string;
  readonly objectRef?: { readonly apiGroup?: string; readonly resource?: string; readonly subresource?: string };
  readonly responseStatus?: { readonly code?: number; readonly message?: string };
  readonly requestURI?: string;
}

/** `verb group/resource[/subresource]`, the unit RBAC grants. */
function permission(verb: string, group: string, resource: string): string {
  return `${verb} ${group || "core"}/${resource}`;
}

function usedByRelay(runDir: string): { used: Set<string>; refused: string[] } {
  const used = new Set<string>();
  const refused: string[] = [];
  for (const file of globSync(join(runDir, "*", "audit.log"))) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (!line.includes(RELAY_USER)) continue;
      const event = JSON.parse(line) as AuditEvent;
      if (event.user?.username !== RELAY_USER || !event.verb || !event.objectRef?.resource) continue;
      const resource = event.objectRef.subresource ? `${event.objectRef.resource}/${event.objectRef.subresource}` : event.objectRef.resource;
      const key = permission(event.verb, event.objectRef.apiGroup ?? "", resource);
      if (event.responseStatus?.code === 403) refused.push(`${key}: ${event.responseStatus.message ?? event.requestURI ?? ""}`);
      else used.add(key);
    }
  }
  return { used, refused };
}

async function granted(): Promise<Set<string>> {
  const manifest = createRegistry(await loadControllers([FIXTURE_CONTROLLERS])).manifest;
  const objects = installObjects({ workerUrl: "https://worker.invalid", namespace: NAMESPACE, image: "relay", replicas: 1, secret: "x".repeat(32), tls: { certPem: "", keyPem: "" }, manifest, crds: [] });
  const grants = new Set<string>();
  for (const role of objects.filter((o) => o.kind === "ClusterRole" || o.kind === "Role")) {
    for (const rule of (role as unknown as { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] }).rules) {
      for (const group of rule.apiGroups) for (const resource of rule.resources) for (const verb of rule.verbs) grants.add(permission(verb, group, resource));
    }
  }
  return grants;
}

test("the relay's ServiceAccount was never refused, and used nothing its roles do not grant", async () => {
  assert.ok(RUN_DIR && existsSync(RUN_DIR), "EDGELOOP_CLUSTER_RUN_DIR names no folder: this check runs last in npm run test:cluster, over its audit logs");
  const { used, refused } = usedByRelay(RUN_DIR ?? "");
  assert.ok(used.size > 0, `no request of ${RELAY_USER} in the audit logs of ${RUN_DIR}: did the relay run as its ServiceAccount?`);
  // A kube-apiserver that just started refuses for a moment (RBAC caches loading; the faults suite restarts it): a permission refused then and granted since is not a gap.
  const lasting = refused.filter((r) => !used.has(r.split(":")[0] ?? "") && !((r.split(":")[0] ?? "") in REFUSED_ON_PURPOSE));
  assert.deepEqual(lasting, [], "the API server refused the relay something it never allowed it");
  const grants = await granted();
  const missing = [...used].filter((p) => !grants.has(p)).sort();
  assert.deepEqual(missing, [], "used without a grant (an RBAC gap the API server would have refused)");
});

test("every grant of the relay's roles was used by the run, or is written down as unused on purpose", { skip: FULL_RUN ? false : "only when every suite ran (npm run test:cluster without FILTER)" }, async () => {
  const { used } = usedByRelay(RUN_DIR ?? "");
  const unused = [...(await granted())].filter((p) => !used.has(p) && !(p in UNUSED_ON_PURPOSE)).sort();
  assert.deepEqual(unused, [], "granted but never used in a whole test:cluster run: narrow the role, or list it in UNUSED_ON_PURPOSE with the test that exercises it");
});
