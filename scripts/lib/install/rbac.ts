/**
 * The relay's least-privilege ClusterRole, built from the controllers' declared
 * permissions alone (`permissions` of each manifest entry): nothing is inferred from what
 * a controller watches or how its children map. The one grant of the relay's own is
 * creating core Events, which it records on every controller's behalf (plans' `event`
 * actions, `FailedCreate`/`FailedDelete`/`ReconcileError` when an action fails for good).
 * Every verb granted is one the relay sends (ADR 0019): its informers list and watch
 * (a `get` only where declared: root owners), it POSTs Events and never patches one,
 * and it writes `/status` with a merge PATCH and never reads it there.
 */
import type { Access, Manifest } from "../../../protocol/index.ts";

/** A ClusterRole rule. */
export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

/**
 * What each declared access grants: on the resource itself, or on its status
 * subresource. Exactly the verbs the relay uses: POST, merge PATCH and DELETE (never
 * PUT, so no `update`), status through a PATCH of `/status` only.
 */
const GRANTS: Record<Access, { readonly status: boolean; readonly verbs: readonly string[] }> = {
  read: { status: false, verbs: ["list", "watch"] },
  get: { status: false, verbs: ["get"] },
  write: { status: false, verbs: ["create", "patch", "delete"] },
  status: { status: true, verbs: ["patch"] },
  create: { status: false, verbs: ["create"] },
  patch: { status: false, verbs: ["patch"] },
  delete: { status: false, verbs: ["delete"] },
};

/** `<kind>/finalizers` is never written directly: the API server checks `update` on it for blockOwnerDeletion. */
const FINALIZERS_VERBS: readonly string[] = ["update"];

/** The relay's own needs, whatever the controllers: recording core/v1 Events (`relay/apply/requests.ts` POSTs them; it never patches nor uses events.k8s.io). */
const RELAY_OWN: readonly { group: string; resource: string; verbs: readonly string[] }[] = [{ group: "", resource: "events", verbs: ["create"] }];

/**
 * What the front needs when an API declares `readers` (`relay/front/readers.ts`): it asks
 * the API server who a caller's bearer token is and what that user may do, as
 * kube-rbac-proxy does (the `system:auth-delegator` ClusterRole's two rules).
 */
const READERS_REVIEWS: readonly { group: string; resource: string; verbs: readonly string[] }[] = [
  { group: "authentication.k8s.io", resource: "tokenreviews", verbs: ["create"] },
  { group: "authorization.k8s.io", resource: "subjectaccessreviews", verbs: ["create"] },
];

/** The rules the manifest's permissions grant, merged per group and verb set, sorted for stable output. */
export function relayRules(manifest: Manifest): PolicyRule[] {
  const grants = new Map<string, Set<string>>(); // "group|resource" → verbs
  const grant = (group: string, resource: string, verbs: readonly string[]): void => {
    const key = `${group}|${resource}`;
    const set = grants.get(key) ?? new Set<string>();
    verbs.forEach((v) => set.add(v));
    grants.set(key, set);
  };
  for (const permission of manifest.controllers.flatMap((controller) => controller.permissions)) {
    for (const access of permission.access) {
      const { status, verbs } = GRANTS[access];
      const finalizers = access === "write" && permission.resource.endsWith("/finalizers");
      grant(permission.group, status ? `${permission.resource}/status` : permission.resource, finalizers ? FINALIZERS_VERBS : verbs);
    }
  }
  for (const own of RELAY_OWN) grant(own.group, own.resource, own.verbs);
  const readers = manifest.controllers.some((controller) => controller.apis.some((api) => api.readers !== undefined));
  if (readers) for (const review of READERS_REVIEWS) grant(review.group, review.resource, review.verbs);
  return mergeByVerbs(grants);
}

function mergeByVerbs(grants: ReadonlyMap<string, ReadonlySet<string>>): PolicyRule[] {
  const byVerbs = new Map<string, { group: string; resources: string[]; verbs: string[] }>();
  for (const [key, verbs] of [...grants.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const [group = "", resource = ""] = key.split("|");
    const sortedVerbs = [...verbs].sort();
    const id = `${group}|${sortedVerbs.join(",")}`;
    const rule = byVerbs.get(id) ?? { group, resources: [], verbs: sortedVerbs };
    rule.resources.push(resource);
    byVerbs.set(id, rule);
  }
  return [...byVerbs.values()].map((r) => ({ apiGroups: [r.group], resources: r.resources, verbs: r.verbs }));
}
