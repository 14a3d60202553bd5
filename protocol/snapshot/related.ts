/**
 * The `related` objects a webhook or an API receives, and a snapshot controller's declared
 * ones (narrowed to its parent, `./build.ts`): each declared kind's cached objects narrowed
 * to the request (pure over the caches). Every narrowing given applies;
 * `named`, `namedBy` and `ownerOf` are read by `get`, the others by listing one namespace
 * (or, without one, the cache), so a request costs what it finds, not what the cache holds.
 */
import { holdsValue, kindKey, matchesLabelSelector, valuesAt, type KubeObject, type RelatedObjects, type TypeRef } from "../index.ts";
import { controllerOfType } from "../kube/owner.ts";
import type { RelatedCache, RelatedCaches } from "./caches.ts";

/** What narrowing reads of a request. */
export interface RelatedRequest {
  /** The namespace the request names, if any. */
  readonly namespace: string | undefined;
  /** What `namedBy` paths start from: the AdmissionRequest, or an API's `{ query, body }`. */
  readonly root: unknown;
}

/** The related objects of every declared kind, by `Kind.apiVersion`; an object two entries find is sent once. */
export function relatedObjects(declared: readonly RelatedObjects[], request: RelatedRequest, caches: RelatedCaches): Record<string, KubeObject[]> {
  // An empty namespace names none (a cache lists every namespace for "").
  const scoped: RelatedRequest = { namespace: request.namespace || undefined, root: request.root };
  const related: Record<string, KubeObject[]> = {};
  for (const kind of declared) {
    const cache = caches(kind);
    const found = cache ? narrow(kind, scoped, cache, caches) : [];
    const key = kindKey(kind);
    const earlier = related[key];
    related[key] = earlier ? union(earlier, found) : found;
  }
  return related;
}

function union(earlier: readonly KubeObject[], found: readonly KubeObject[]): KubeObject[] {
  const seen = new Set(earlier);
  return [...earlier, ...found.filter((o) => !seen.has(o))];
}

/**
 * One declared kind's objects for the request: the narrowest narrowing finds candidates
 * (got by name where it can, listed in one namespace otherwise), then every narrowing
 * given filters them.
 */
function narrow(kind: RelatedObjects, request: RelatedRequest, cache: RelatedCache, caches: RelatedCaches): KubeObject[] {
  if (kind.unlessNamed?.some((path) => valuesAt(request.root, path).length > 0)) return [];
  if (kind.onlyWhen && !kind.onlyWhen.some((path) => holdsValue(request.root, path))) return [];
  // A request that names no namespace gets nothing a namespace narrows.
  if (kind.sameNamespace && request.namespace === undefined) return [];
  const inNamespace = cache.namespaced || kind.sameNamespace;
  const filters: ((o: KubeObject) => boolean)[] = [];
  if (kind.sameNamespace && cache.namespaced) filters.push((o) => o.metadata.namespace === request.namespace);
  const selector = kind.selector;
  if (selector) filters.push((o) => matchesLabelSelector(o.metadata.labels, selector));
  const sharing = kind.sharingLabels ? labelSets(kind.sharingLabels, kind, request, caches) : undefined;
  if (sharing) filters.push((o) => sharing.some((set) => set.every(([key, value]) => o.metadata.labels?.[key] === value)));
  const owners = kind.ownerOf ? ownersOf(kind.ownerOf, kind, request, cache, caches) : undefined;
  if (owners) filters.push((o) => owners.includes(o));
  const candidates = kind.named
    ? fixed(kind.named, cache)
    : kind.namedBy
      ? named(kind.namedBy, request, cache, inNamespace)
      : (owners ?? (sharing && sharing.length === 0 ? [] : cache.list(kind.sameNamespace ? request.namespace : undefined)));
  return filters.length === 0 ? candidates : candidates.filter((o) => filters.every((keep) => keep(o)));
}

/** The label values the objects named at `namedBy` have at `labels` (one set per object that has them all). */
function labelSets(sharing: NonNullable<RelatedObjects["sharingLabels"]>, kind: TypeRef, request: RelatedRequest, caches: RelatedCaches): (readonly [string, string])[][] {
  const source = caches(sharing.kind ?? kind);
  if (!source) return [];
  const sets: (readonly [string, string])[][] = [];
  for (const object of named(sharing.namedBy, request, source, source.namespaced)) {
    const labels = object.metadata.labels ?? {};
    if (sharing.labels.every((key) => labels[key] !== undefined)) sets.push(sharing.labels.map((key) => [key, labels[key] ?? ""] as const));
  }
  return sets;
}

/** The controller owners, in `cache`, of the objects named at `ownerOf.namedBy`. */
function ownersOf(ownerOf: NonNullable<RelatedObjects["ownerOf"]>, kind: TypeRef, request: RelatedRequest, cache: RelatedCache, caches: RelatedCaches): KubeObject[] {
  const source = caches(ownerOf.kind);
  if (!source) return [];
  const owners: KubeObject[] = [];
  for (const object of named(ownerOf.namedBy, request, source, source.namespaced)) {
    const ref = controllerOfType(object, kind);
    const owner = ref ? cache.get(cache.namespaced ? object.metadata.namespace : undefined, ref.name) : undefined;
    if (owner && owner.metadata.uid === ref?.uid && !owners.includes(owner)) owners.push(owner);
  }
  return owners;
}

/**
 * The objects named at `paths` of the request, looked up in the request's namespace
 * when `inNamespace` (namespaced kinds; `sameNamespace`): none when it names none.
 */
function named(paths: readonly string[], request: RelatedRequest, cache: RelatedCache, inNamespace: boolean): KubeObject[] {
  if (inNamespace && request.namespace === undefined) return [];
  const namespace = inNamespace ? request.namespace : undefined;
  const names = new Set(paths.flatMap((path) => valuesAt(request.root, path)));
  const found: KubeObject[] = [];
  for (const name of names) {
    const object = cache.get(namespace, name);
    if (object) found.push(object);
  }
  return found;
}

/** The objects a declaration names outright (`named`). */
function fixed(objects: NonNullable<RelatedObjects["named"]>, cache: RelatedCache): KubeObject[] {
  const found: KubeObject[] = [];
  for (const { namespace, name } of objects) {
    const object = cache.get(cache.namespaced ? namespace : undefined, name);
    if (object) found.push(object);
  }
  return found;
}
