/**
 * Query parameters read as kube-apiserver reads them. Booleans go through apimachinery's
 * `Convert_Slice_string_To_bool` (pkg/runtime/conversion.go), not strconv.ParseBool:
 * only an absent parameter, `0`, or `false` in any case is false — every other value,
 * the empty string and `yes` included, is true (`watch=True`, `watch=t` and `watch=`
 * all open a stream).
 */
import { badRequest } from "../pipeline/errors.ts";

/** A boolean query parameter (`watch`, `allowWatchBookmarks`, `sendInitialEvents`, `follow`, `force`, ...). */
export function queryBool(q: URLSearchParams, name: string): boolean {
  const value = q.get(name);
  if (value === null) return false;
  return !(value === "0" || value.toLowerCase() === "false");
}

/** `sendInitialEvents` as given (undefined when absent): a watch streams what is, then a bookmark. */
export function queryOptionalBool(q: URLSearchParams, name: string): boolean | undefined {
  return q.has(name) ? queryBool(q, name) : undefined;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * An integer query parameter (`limit`, `timeoutSeconds`, `gracePeriodSeconds`, `tailLines`,
 * ...) as Go's strconv.ParseInt(s, 10, 64) reads it: decimal digits with an optional sign,
 * within int64; anything else (the empty string too) a 400 worded as ParseInt's error.
 */
export function queryInt(q: URLSearchParams, name: string): number {
  const value = q.get(name) ?? "";
  if (!/^[+-]?\d+$/.test(value)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  const big = BigInt(value);
  if (big < INT64_MIN || big > INT64_MAX) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range`);
  return Number(value);
}
