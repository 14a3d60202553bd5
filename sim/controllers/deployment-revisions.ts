/**
 * A Deployment's revisions as kube-controller-manager's deployment controller keeps them
 * (pkg/controller/deployment/util): each ReplicaSet carries `deployment.kubernetes.io/revision`;
 * the ReplicaSet whose template equals the Deployment's (ignoring `pod-template-hash`) is the
 * new one, and when it is an old one brought back (`kubectl rollout undo`) it takes the next
 * revision and remembers its earlier ones in `revision-history`. Pure: the controller writes.
 */
import type { KubeObject } from "../../protocol/index.ts";
import { stableJson } from "../api/objects.ts";
import { obj, type Obj } from "./runtime.ts";

export const REVISION = "deployment.kubernetes.io/revision";
export const REVISION_HISTORY = "deployment.kubernetes.io/revision-history";
export const DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas";
export const MAX_REPLICAS = "deployment.kubernetes.io/max-replicas";
export const HASH_LABEL = "pod-template-hash";

/** Annotations the controller never copies from a Deployment to its ReplicaSets (annotationsToSkip). */
const NOT_COPIED = new Set(["kubectl.kubernetes.io/last-applied-configuration", REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS, "deprecated.deployment.rollback.to"]);
/** RevisionHistoryLimitInChars' default (the controller's --deployment-controller-... is not configurable; 2000). */
const HISTORY_LIMIT_CHARS = 2000;

/** The value as Go's semantic equality sees it: nulls and empty maps/lists are what an absent field is. */
function semantic(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map(semantic);
  if (typeof value !== "object" || value === null) return value ?? undefined;
  const entries = Object.entries(value).map(([k, v]) => [k, semantic(v)] as const).filter(([, v]) => v !== undefined);
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/** A pod template without its `pod-template-hash` label, in the form equality compares. */
function comparableTemplate(template: unknown): string {
  const t = obj(template);
  const meta = obj(t.metadata);
  const labels = Object.fromEntries(Object.entries(obj(meta.labels)).filter(([k]) => k !== HASH_LABEL));
  return stableJson(semantic({ ...t, metadata: { ...meta, labels } }) ?? {});
}

/** EqualIgnoreHash: two pod templates are the same revision. */
export function sameTemplate(a: unknown, b: unknown): boolean {
  return comparableTemplate(a) === comparableTemplate(b);
}

/** A short stable hash of a pod template (FNV-1a, base 36), as the `pod-template-hash` label value. */
export function templateHash(template: unknown): string {
  let h = 0x811c9dc5;
  for (const ch of comparableTemplate(template)) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36).padStart(7, "0").slice(0, 10);
}

/** A ReplicaSet's revision (0 when it has none or it is not a number, as Revision()). */
export function revisionOf(rs: KubeObject): number {
  const value = Number(rs.metadata.annotations?.[REVISION] ?? 0);
  return Number.isInteger(value) && value > 0 ? value : 0;
}

/** FindNewReplicaSet: the oldest ReplicaSet whose template is the Deployment's. */
export function findNewReplicaSet(template: unknown, sets: readonly KubeObject[]): KubeObject | undefined {
  const byAge = [...sets].sort((a, b) => (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? "") || (a.metadata.name ?? "").localeCompare(b.metadata.name ?? ""));
  return byAge.find((rs) => sameTemplate(obj((rs as Obj).spec).template, template));
}

/** The revision the new ReplicaSet must carry: one past the old ones' highest. */
export function nextRevision(oldSets: readonly KubeObject[]): number {
  return 1 + Math.max(0, ...oldSets.map(revisionOf));
}

/**
 * SetNewReplicaSetAnnotations: the new ReplicaSet's annotations given the Deployment's and
 * the revision it must reach; an old ReplicaSet brought back keeps its past revisions.
 */
export function newReplicaSetAnnotations(deploymentAnnotations: Readonly<Record<string, string>>, current: Readonly<Record<string, string>>, revision: number): Record<string, string> {
  const annotations: Record<string, string> = { ...current };
  for (const [key, value] of Object.entries(deploymentAnnotations)) if (!NOT_COPIED.has(key)) annotations[key] = value;
  const had = current[REVISION];
  const before = Number(had ?? 0);
  if (!(before >= revision)) annotations[REVISION] = String(revision);
  if (had !== undefined && before < revision) {
    const history = current[REVISION_HISTORY];
    annotations[REVISION_HISTORY] = history ? trimHistory([...history.split(","), had]) : had;
  }
  return annotations;
}

/** Past revisions, the oldest dropped first while the list is longer than the limit. */
function trimHistory(revisions: string[]): string {
  let list = revisions;
  while (list.length > 1 && list.join(",").length > HISTORY_LIMIT_CHARS) list = list.slice(1);
  return list.join(",");
}

/**
 * cleanupDeployment: of the old ReplicaSets beyond `revisionHistoryLimit` (oldest revision
 * first), those with no replicas wanted or running; one being deleted does not count.
 */
export function expiredReplicaSets(oldSets: readonly KubeObject[], limit: number): KubeObject[] {
  const alive = oldSets.filter((rs) => !rs.metadata.deletionTimestamp);
  const excess = alive.length - Math.max(0, limit);
  if (excess <= 0) return [];
  const byRevision = [...alive].sort((a, b) => revisionOf(a) - revisionOf(b) || (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? ""));
  return byRevision.slice(0, excess).filter(idle);
}

function idle(rs: KubeObject): boolean {
  const o = rs as KubeObject & Obj;
  const observed = Number(obj(o.status).observedGeneration ?? 0);
  return Number(obj(o.spec).replicas ?? 0) === 0 && Number(obj(o.status).replicas ?? 0) === 0 && (rs.metadata.generation ?? 0) <= observed;
}
