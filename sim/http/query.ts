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

/** An integer query parameter (`timeoutSeconds`, `gracePeriodSeconds`): anything else is a 400 worded as Go's strconv.ParseInt. */
export function queryInt(q: URLSearchParams, name: string): number {
  const value = q.get(name) ?? "";
  if (!/^[+-]?\d+$/.test(value)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  return Number(value);
}
