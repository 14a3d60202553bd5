/**
 * What a snapshot is built from: the caches of a controller's watched kinds, as the
 * builder reads them. The relay's informer caches serve these; so does the kit's fake
 * cluster, so a controller's unit test sees the snapshot the relay would send.
 */
import type { KubeObject, TypeRef, Watch } from "../index.ts";

/** The cache of one watch's objects, as a mapping reads it. */
export interface CacheView {
  get(namespace: string | undefined, name: string): KubeObject | undefined;
  list(namespace?: string): KubeObject[];
  ownedBy(uid: string): KubeObject[];
  /** Objects with `value` at the field path `path`. */
  withField(path: string, value: string): KubeObject[];
  /** Objects whose label `label` is `value`. */
  withLabel(label: string, value: string): KubeObject[];
  /** Whether the view holds `object` cut to declared fields already (absent: it does not). */
  trimmed?(object: KubeObject): boolean;
}

/** The cache of a related kind, and whether the kind is namespaced. */
export interface RelatedCache {
  readonly namespaced: boolean;
  get(namespace: string | undefined, name: string): KubeObject | undefined;
  list(namespace?: string): KubeObject[];
}

/** Finds the unfiltered cache of a kind (`undefined` when none). */
export type RelatedCaches = (kind: TypeRef) => RelatedCache | undefined;

/** Every cache a snapshot reads: each watch's view, and each kind's unfiltered cache for `related`. */
export interface SnapshotCaches {
  /** The cache of `watch`'s objects (`undefined`: none). */
  forWatch(watch: Watch): CacheView | undefined;
  /** The cache of every object of `kind` (`undefined`: none). */
  unfiltered(kind: TypeRef): RelatedCache | undefined;
}
