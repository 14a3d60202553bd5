/**
 * List chunking (`limit` and `continue`), as kubectl and client-go informers use it. Items
 * come in key order (`namespace/name`); the continue token carries the resourceVersion
 * of the first page and the last key served. Later pages read the current state after
 * that key — a real API server reads the first page's snapshot instead, so an object
 * changed meanwhile may show its newer state; a watch from the list's resourceVersion
 * delivers that change again, which informers absorb. A token older than the event
 * history is 410 Expired, as after etcd compaction.
 */
import { ApiError } from "../contract.ts";
import { badRequest } from "../pipeline/errors.ts";

/** One page of a list. */
export interface Page<T> {
  readonly items: readonly T[];
  /** The resourceVersion the list reports (the first page's). */
  readonly resourceVersion: string;
  /** Present when more items follow. */
  readonly continueToken: string | undefined;
  /** Items after this page (`remainingItemCount`), when more follow. */
  readonly remaining: number | undefined;
}

interface Token {
  readonly rv: string;
  readonly start: string;
}

function decode(token: string): Token {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as Partial<Token>;
    if (typeof parsed.rv === "string" && typeof parsed.start === "string") return { rv: parsed.rv, start: parsed.start };
  } catch {
    // reported below
  }
  throw badRequest("continue key is not valid: the continue token could not be decoded");
}

function encode(token: Token): string {
  return Buffer.from(JSON.stringify(token)).toString("base64url");
}

/**
 * The page of `items` (any order; `keyOf` gives each its `namespace/name`) that `limit`
 * and `continueToken` ask for. `currentRv` is the store's; `compactedThrough` the oldest
 * resourceVersion still held.
 */
export function paginate<T>(items: readonly T[], keyOf: (item: T) => string, request: { limit: number | undefined; continueToken: string | null }, currentRv: number, compactedThrough: number): Page<T> {
  const token = request.continueToken ? decode(request.continueToken) : undefined;
  if (token && Number(token.rv) < compactedThrough) {
    throw new ApiError(410, "Expired", "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.");
  }
  const resourceVersion = token?.rv ?? String(currentRv);
  if (request.limit === undefined && !token) return { items, resourceVersion, continueToken: undefined, remaining: undefined };
  const keyed = items.map((item) => [keyOf(item), item] as const).filter(([key]) => !token || key > token.start);
  keyed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const limit = request.limit ?? keyed.length;
  const page = keyed.slice(0, limit);
  const more = keyed.length > limit;
  const last = page[page.length - 1]?.[0] ?? token?.start ?? "";
  return {
    items: page.map(([, item]) => item),
    resourceVersion,
    continueToken: more ? encode({ rv: resourceVersion, start: last }) : undefined,
    remaining: more ? keyed.length - limit : undefined,
  };
}
