/**
 * A list's or watch's query parameters as kube-apiserver reads them (apiserver
 * handlers/get.go listOpts): decoded by apimachinery's generated
 * `Convert_url_Values_To_v1_ListOptions` (a value that does not convert is a 400), then
 * checked by `ValidateListOptions` (pkg/apis/meta/internalversion/validation; a 422 about
 * meta.k8s.io ListOptions), the WatchList feature on as in v1.36.
 */
import { ApiError } from "../contract.ts";
import { badRequest, invalid, type Cause } from "../pipeline/errors.ts";
import { queryBool, queryInt, queryOptionalBool } from "./query.ts";

/** metav1.ListOptions as decoded from a query. */
export interface ListOptions {
  readonly labelSelector: string;
  readonly fieldSelector: string;
  readonly watch: boolean;
  readonly allowWatchBookmarks: boolean;
  readonly resourceVersion: string;
  /** "" when absent. */
  readonly resourceVersionMatch: string;
  readonly timeoutSeconds: number | undefined;
  /** 0 when absent: no limit (as is a negative one). */
  readonly limit: number;
  readonly continue: string;
  readonly sendInitialEvents: boolean | undefined;
}

const EXACT = "Exact";
const NOT_OLDER_THAN = "NotOlderThan";

/** Decodes the query (strings taken as given, booleans and integers as apimachinery converts them: a 400 otherwise). */
export function decodeListOptions(q: URLSearchParams): ListOptions {
  const text = (name: string): string => q.get(name) ?? "";
  return {
    labelSelector: text("labelSelector"),
    fieldSelector: text("fieldSelector"),
    watch: queryBool(q, "watch"),
    allowWatchBookmarks: queryBool(q, "allowWatchBookmarks"),
    resourceVersion: text("resourceVersion"),
    resourceVersionMatch: text("resourceVersionMatch"),
    timeoutSeconds: q.has("timeoutSeconds") ? queryInt(q, "timeoutSeconds") : undefined,
    limit: q.has("limit") ? queryInt(q, "limit") : 0,
    continue: text("continue"),
    sendInitialEvents: queryOptionalBool(q, "sendInitialEvents"),
  };
}

const forbidden = (field: string, detail: string): Cause => ({ field, reason: "FieldValueForbidden", message: `Forbidden: ${detail}` });
const notSupported = (field: string, value: string, supported: readonly string[]): Cause => ({ field, reason: "FieldValueNotSupported", message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(", ")}` });

/** ValidateListOptions: what a list or a watch may combine. */
export function listOptionsCauses(o: ListOptions): Cause[] {
  return o.watch ? watchCauses(o) : listCauses(o);
}

function listCauses(o: ListOptions): Cause[] {
  const causes: Cause[] = [];
  const match = o.resourceVersionMatch;
  if (match !== "") {
    if (o.resourceVersion === "") causes.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"));
    if (o.continue !== "") causes.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
    if (match !== EXACT && match !== NOT_OLDER_THAN) causes.push(notSupported("resourceVersionMatch", match, [EXACT, NOT_OLDER_THAN, ""]));
    if (match === EXACT && o.resourceVersion === "0") causes.push(forbidden("resourceVersionMatch", 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (o.sendInitialEvents !== undefined) causes.push(forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
  return causes;
}

function watchCauses(o: ListOptions): Cause[] {
  const causes: Cause[] = [];
  const match = o.resourceVersionMatch;
  if (o.sendInitialEvents !== undefined && match !== NOT_OLDER_THAN) causes.push(forbidden("resourceVersionMatch", `sendInitialEvents requires setting resourceVersionMatch to ${NOT_OLDER_THAN}`));
  if (match !== "") {
    if (o.sendInitialEvents === undefined) causes.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
    if (match !== NOT_OLDER_THAN) causes.push(notSupported("resourceVersionMatch", match, [NOT_OLDER_THAN]));
    if (o.continue !== "") causes.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
  }
  return causes;
}

/** The list options of a list or watch request: a 400 when a value does not convert, a 422 when they do not combine. */
export function listOptionsOf(q: URLSearchParams): ListOptions {
  const options = decodeListOptions(q);
  const causes = listOptionsCauses(options);
  if (causes.length > 0) throw invalid("ListOptions", "meta.k8s.io", "", causes);
  return options;
}

const UINT64_MAX = 2n ** 64n - 1n;

/** Why the storage layer cannot read `resourceVersion` (strconv.ParseUint), or undefined when it can ("" included: none given). */
function resourceVersionProblem(resourceVersion: string): string | undefined {
  if (resourceVersion === "") return undefined;
  const parse = /^\d+$/.test(resourceVersion) ? (BigInt(resourceVersion) > UINT64_MAX ? "value out of range" : undefined) : "invalid syntax";
  if (parse === undefined) return undefined;
  const quoted = JSON.stringify(resourceVersion);
  return `resourceVersion: Invalid value: ${quoted}: strconv.ParseUint: parsing ${quoted}: ${parse}`;
}

/**
 * A resourceVersion that is no unsigned integer, refused as kube-apiserver refuses it: a
 * list's is a 400 (`invalid resource version: ...`), a watch's or a get's a 500 without a
 * reason (the storage layer's error, answered as it is).
 */
export function checkResourceVersion(resourceVersion: string, request: "list" | "watch" | "get"): void {
  const problem = resourceVersionProblem(resourceVersion);
  if (problem === undefined) return;
  throw request === "list" ? badRequest(`invalid resource version: ${problem}`) : new ApiError(500, "", problem);
}
