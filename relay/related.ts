/**
 * The `related` objects a webhook or an API receives: each declared kind's cached
 * objects narrowed to the request (pure over the caches). Every narrowing given applies;
 * `namedBy` is read by `get`, `sameNamespace` by listing one namespace, and only then is
 * the selector matched, so a request costs what it finds, not what the cache holds.
 */
import { kindKey, matchesLabelSelector, valuesAt, type KubeObject, type RelatedObjects, type TypeRef } from "../protocol/index.ts";

/** The cache of a related kind, and whether the kind is namespaced. */
export interface RelatedCache {
  readonly namespaced: boolean;
  get(namespace: string | undefined, name: string): KubeObject | undefined;
  list(namespace?: string): KubeObject[];
}

/** Finds the unfiltered cache of a kind (`undefined` when none). */
export type RelatedCaches = (kind: TypeRef) => RelatedCache | undefined;

/** What narrowing reads of a request. */
export interface RelatedRequest {
  /** The namespace the request names, if any. */
  readonly namespace: string | undefined;
  /** What `namedBy` paths start from: the AdmissionRequest, or an API's `{ query, body }`. */
  readonly root: unknown;
}

/** The related objects of every declared kind, by `Kind.apiVersion`. */
export function relatedObjects(declared: readonly RelatedObjects[], request: RelatedRequest, caches: RelatedCaches): Record<string, KubeObject[]> {
  // An empty namespace names none (a cache lists every namespace for "").
  const scoped: RelatedRequest = { namespace: request.namespace || undefined, root: request.root };
  const related: Record<string, KubeObject[]> = {};
  for (const kind of declared) {
    const cache = caches(kind);
    const found = cache ? narrow(kind, scoped, cache) : [];
    const key = kindKey(kind);
    const earlier = related[key];
    related[key] = earlier ? [...earlier, ...found] : found;
  }
  return related;
}

/** One declared kind's objects for the request. */
function narrow(kind: RelatedObjects, request: RelatedRequest, cache: RelatedCache): KubeObject[] {
  // A request that names no namespace gets nothing a namespace narrows.
  if (kind.sameNamespace && request.namespace === undefined) return [];
  const inNamespace = cache.namespaced || kind.sameNamespace;
  const candidates = kind.named ? fixed(kind.named, request, cache, kind.sameNamespace) : kind.namedBy ? named(kind.namedBy, request, cache, inNamespace) : cache.list(kind.sameNamespace ? request.namespace : undefined);
  const selector = kind.selector;
  return selector ? candidates.filter((o) => matchesLabelSelector(o.metadata.labels, selector)) : candidates;
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

/** The objects a declaration names outright (`named`), kept to the request's namespace when `sameNamespace`. */
function fixed(objects: NonNullable<RelatedObjects["named"]>, request: RelatedRequest, cache: RelatedCache, sameNamespace: boolean): KubeObject[] {
  const found: KubeObject[] = [];
  for (const { namespace, name } of objects) {
    const scope = cache.namespaced ? namespace : undefined;
    if (sameNamespace && scope !== request.namespace) continue;
    const object = cache.get(scope, name);
    if (object) found.push(object);
  }
  return found;
}
