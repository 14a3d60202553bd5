/**
 * What an informer does to each object before client-node's ListWatch stores it: the
 * store stage's projection (`store/projection.ts`), given to the watch stage as this
 * interface so that every listed page and every watch event is cut once, on arrival.
 */
export interface ObjectTransform {
  /** The object as it is to be kept: the same object, or a new, smaller one. */
  project<T extends object>(object: T): T;
}
