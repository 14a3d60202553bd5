/**
 * What an informer keeps of each object: the projection of the fields its watches declare
 * (controller-runtime's cache `TransformFunc`, decided by the manifest). A 100,000-pod
 * cluster costs the relay what its controllers read of a pod, not the pod.
 *
 * A cache is built from rules, each a label selector (none: every object) and the fields it
 * needs (none: the whole object). An object keeps the union of the fields of the rules
 * whose selector it matches; one matching rule without fields keeps it whole. So the cache
 * of every pod keeps a labelled worker pod whole (its controller's label-selected watch
 * reads all of it) and other pods projected. Identity, version, ownership and deletion are
 * always kept (`ALWAYS_KEPT`; the cutting itself is `protocol/snapshot/path-tree.ts`,
 * shared with deliveries).
 */
import { ALWAYS_KEPT, pathTree, projectValue, type PathTree } from "../../protocol/snapshot/path-tree.ts";
import { matchesLabelRequirements, parseLabelSelector, type LabelRequirement } from "../../protocol/kube/selectors.ts";
import type { ObjectTransform } from "../watch/transform.ts";

/** One watch's need: the objects it selects (a label selector string; absent: all) and their fields (absent: whole). */
export interface ProjectionRule {
  readonly labelSelector?: string | undefined;
  readonly fields?: readonly string[] | undefined;
}

/** Distinct values an interner keeps at most; past it, new values are kept unshared (a cluster of unique values costs a bounded table). */
const INTERN_LIMIT = 20_000;
/** Longer values are not worth a lookup key. */
const INTERN_MAX_CHARS = 2_048;

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

/**
 * Shares equal kept values between the objects of a cache, as JSON would not: every pod
 * parsed from a list carries its own copy of the same tolerations, requests, label maps
 * and `"Running"`. A shared value is frozen, so a reader that writes to it fails loudly
 * instead of changing every object holding it.
 */
export class Interner {
  readonly #strings = new Map<string, string>();
  readonly #values = new Map<string, unknown>();

  /** The shared copy of `value` (itself the first time). */
  readonly intern = (value: unknown): unknown => {
    if (typeof value === "string") {
      if (value.length > INTERN_MAX_CHARS) return value;
      const known = this.#strings.get(value);
      if (known !== undefined) return known;
      if (this.#strings.size < INTERN_LIMIT) this.#strings.set(value, value);
      return value;
    }
    if (typeof value !== "object" || value === null) return value;
    const key = JSON.stringify(value);
    if (key.length > INTERN_MAX_CHARS) return value;
    const known = this.#values.get(key);
    if (known !== undefined) return known;
    if (this.#values.size >= INTERN_LIMIT) return value;
    this.#values.set(key, deepFreeze(value));
    return value;
  };
}

interface CompiledRule {
  readonly selector: readonly LabelRequirement[] | undefined;
  readonly fields: readonly string[] | undefined;
}

/** The projection of one cache: the transform its informer applies to each object before storing it. */
export class Projection implements ObjectTransform {
  readonly #rules: readonly CompiledRule[];
  /** Trees by the set of matching rules (few distinct sets: memoized). */
  readonly #trees = new Map<string, PathTree | undefined>();
  readonly #interner = new Interner();
  /** The objects `project` kept whole (a rule without fields matched): few, and weakly held. */
  readonly #keptWhole = new WeakSet<object>();

  constructor(rules: readonly ProjectionRule[]) {
    this.#rules = rules.map((rule) => ({ selector: rule.labelSelector ? parseLabelSelector(rule.labelSelector) : undefined, fields: rule.fields }));
  }

  /** Whether every object is kept whole (a rule for all objects declares no fields): nothing to do. */
  get whole(): boolean {
    return this.#rules.length === 0 || this.#rules.some((rule) => rule.selector === undefined && rule.fields === undefined);
  }

  /** The object as the cache keeps it: the same object when kept whole, else a new, smaller one. */
  project<T extends object>(object: T): T {
    if (this.whole) return object;
    const labels = (object as { metadata?: { labels?: Record<string, string> } }).metadata?.labels;
    let key = "";
    for (const rule of this.#rules) key += rule.selector === undefined || matchesLabelRequirements(labels, rule.selector) ? "1" : "0";
    let tree = this.#trees.get(key);
    if (!this.#trees.has(key)) {
      const matching = this.#rules.filter((_, i) => key[i] === "1");
      tree = matching.some((rule) => rule.fields === undefined) ? undefined : pathTree([...ALWAYS_KEPT, ...matching.flatMap((rule) => rule.fields ?? [])]);
      this.#trees.set(key, tree);
    }
    if (tree === undefined) {
      this.#keptWhole.add(object);
      return object;
    }
    return projectValue(object, tree, this.#interner.intern) as T;
  }

  /** Whether `object` (as `project` returned it) was cut to the declared fields, not kept whole. */
  trimmed(object: object): boolean {
    return !this.whole && !this.#keptWhole.has(object);
  }
}
