/**
 * A secondary index of one cache: objects filed under the values a function reads from
 * them (a controller owner uid, the values at a field path). An object may be filed under
 * several values; the reverse map of what each key was filed under lets an update or a
 * delete move it without a scan.
 */
import type { KubeObject } from "../../protocol/index.ts";

const NONE: readonly string[] = [];

/** Objects by the values `valuesOf` reads from them. */
export class ObjectIndex {
  readonly #valuesOf: (object: KubeObject) => readonly string[];
  readonly #byValue = new Map<string, Map<string, KubeObject>>();
  readonly #filedUnder = new Map<string, readonly string[]>();

  constructor(valuesOf: (object: KubeObject) => readonly string[]) {
    this.#valuesOf = valuesOf;
  }

  /** Files the object stored under `key` by its current values, or nowhere when it is gone (`undefined`). */
  update(key: string, object: KubeObject | undefined): void {
    const next = object ? distinct(this.#valuesOf(object)) : NONE;
    const previous = this.#filedUnder.get(key) ?? NONE;
    for (const value of previous) if (!next.includes(value)) this.#unfile(value, key);
    // Filed again even under an unchanged value: the bucket must hold the newest object.
    if (object) for (const value of next) this.#file(value, key, object);
    if (next.length > 0) this.#filedUnder.set(key, next);
    else this.#filedUnder.delete(key);
  }

  /** The objects filed under `value`. */
  get(value: string): KubeObject[] {
    const bucket = this.#byValue.get(value);
    return bucket ? [...bucket.values()] : [];
  }

  #file(value: string, key: string, object: KubeObject): void {
    let bucket = this.#byValue.get(value);
    if (!bucket) this.#byValue.set(value, (bucket = new Map()));
    bucket.set(key, object);
  }

  #unfile(value: string, key: string): void {
    const bucket = this.#byValue.get(value);
    bucket?.delete(key);
    if (bucket?.size === 0) this.#byValue.delete(value);
  }
}

/** `values` without repeats (an EndpointSlice names one node once per endpoint on it). */
function distinct(values: readonly string[]): readonly string[] {
  return values.length < 2 ? values : [...new Set(values)];
}
