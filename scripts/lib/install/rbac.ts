/**
 * The relay's least-privilege ClusterRole, derived from the manifest: read what is
 * watched; write only children (kinds mapped to their owner), parents' status, Events;
 * and, for controllers that keep their own view (schedulers), the kinds they watch plus
 * pod bindings.
 */
import type { Manifest, Watch } from "../../../protocol/index.ts";

/** A ClusterRole rule. */
export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

const READ = ["get", "list", "watch"];
const WRITE = ["create", "update", "patch", "delete"];

const groupOf = (apiVersion: string): string => (apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "");

/** The rules the manifest needs, merged per group and verb set, sorted for stable output. */
export function relayRules(manifest: Manifest): PolicyRule[] {
  const grants = new Map<string, Set<string>>(); // "group|resource" → verbs
  const grant = (group: string, resource: string, verbs: readonly string[]): void => {
    const key = `${group}|${resource}`;
    const set = grants.get(key) ?? new Set<string>();
    verbs.forEach((v) => set.add(v));
    grants.set(key, set);
  };
  const resourceOf = (kind: { apiVersion: string; kind: string }, watches: readonly Watch[]): string | undefined =>
    watches.find((w) => w.apiVersion === kind.apiVersion && w.kind === kind.kind)?.resource;
  for (const controller of manifest.controllers) {
    for (const watch of controller.watches) {
      const group = groupOf(watch.apiVersion);
      grant(group, watch.resource, READ);
      if (watch.mapping.by === "owner" || controller.delivery === "events") grant(group, watch.resource, WRITE);
      if (controller.delivery === "events" && watch.kind === "Pod" && group === "") grant("", "pods/binding", ["create"]);
    }
    if (controller.parent) {
      const resource = resourceOf(controller.parent, controller.watches);
      if (resource) {
        grant(groupOf(controller.parent.apiVersion), resource, ["patch", "update"]);
        grant(groupOf(controller.parent.apiVersion), `${resource}/status`, ["get", "patch", "update"]);
      }
    }
  }
  grant("", "events", ["create", "patch"]);
  grant("events.k8s.io", "events", ["create", "patch"]);
  // Discovery of plurals for kinds named in plans but not in watches is not granted: plans may only touch watched kinds.
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
