/**
 * Every query parameter the sim serves, in the spellings clients send, through the HTTP
 * server: how kube-apiserver v1.36 decodes it (apimachinery's generated
 * Convert_url_Values_To_v1_ListOptions and runtime/conversion.go: booleans true unless
 * `0` or `false` in any case, integers as strconv.ParseInt) and validates it
 * (ValidateListOptions, ValidateCreate/Update/Patch/DeleteOptions, ValidatePodLogOptions):
 * a 400 for a value that does not decode, a 422 for options that are not allowed.
 * The watch spellings and several rows were also compared with a real kube-apiserver by
 * `npm run conformance` (test/conformance/scenarios/watch.ts, clients.ts, query.ts).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startSim, type RunningSim } from "../index.ts";

let sim: RunningSim;
before(async () => {
  sim = await startSim({ controllers: false, nodes: 0 });
});
after(async () => {
  await sim.stop();
});

const NS = "/api/v1/namespaces/default";
type Expect = "stream" | "list" | readonly [status: number, message?: string];

interface Row {
  readonly parameter: string;
  readonly method?: "GET" | "POST" | "PATCH" | "DELETE";
  readonly path?: string;
  readonly query: string;
  readonly contentType?: string;
  readonly accept?: string;
  readonly body?: unknown;
  readonly expect: Expect;
}

const watchSpellings = (values: readonly string[], expect: Expect): Row[] => values.map((v) => ({ parameter: "watch", query: `watch=${encodeURIComponent(v)}`, expect }));
const CM = (name: string): unknown => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name } });
const MERGE = "application/merge-patch+json";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";

const ROWS: readonly Row[] = [
  ...watchSpellings(["true", "True", "TRUE", "t", "T", "1", "yes", "", "f", "F", "on"], "stream"),
  ...watchSpellings(["false", "False", "FALSE", "fAlSe", "0"], "list"),
  { parameter: "allowWatchBookmarks", query: "watch=1&allowWatchBookmarks=True", expect: "stream" },
  { parameter: "sendInitialEvents", query: "watch=1&sendInitialEvents=T&resourceVersionMatch=NotOlderThan", expect: "stream" },
  { parameter: "sendInitialEvents", query: "sendInitialEvents=false", expect: [422, 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'] },
  { parameter: "sendInitialEvents", query: "watch=true&sendInitialEvents=true", expect: [422, "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"] },
  { parameter: "resourceVersionMatch", query: "watch=true&resourceVersionMatch=NotOlderThan", expect: [422, "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"] },
  { parameter: "resourceVersionMatch", query: "resourceVersionMatch=Exact", expect: [422, "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"] },
  { parameter: "resourceVersionMatch", query: "resourceVersionMatch=exact&resourceVersion=1", expect: [422, 'resourceVersionMatch: Unsupported value: "exact": supported values: "Exact", "NotOlderThan", ""'] },
  { parameter: "resourceVersionMatch", query: "resourceVersionMatch=Exact&resourceVersion=0", expect: [422, 'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'] },
  { parameter: "resourceVersionMatch", query: "resourceVersionMatch=NotOlderThan&resourceVersion=0", expect: "list" },
  { parameter: "limit", query: "limit=2", expect: "list" },
  { parameter: "limit", query: "limit=%2B2", expect: "list" },
  // In a query `+` is a space (Go's url.ParseQuery too), which ParseInt refuses.
  { parameter: "limit", query: "limit=+2", expect: [400, 'strconv.ParseInt: parsing " 2": invalid syntax'] },
  { parameter: "limit", query: "limit=-1", expect: "list" },
  { parameter: "limit", query: "limit=abc", expect: [400, 'strconv.ParseInt: parsing "abc": invalid syntax'] },
  { parameter: "limit", query: "limit=", expect: [400, 'strconv.ParseInt: parsing "": invalid syntax'] },
  { parameter: "limit", query: "limit=1.5", expect: [400, 'strconv.ParseInt: parsing "1.5": invalid syntax'] },
  { parameter: "limit", query: "limit=0x10", expect: [400, 'strconv.ParseInt: parsing "0x10": invalid syntax'] },
  { parameter: "limit", query: "limit=9223372036854775808", expect: [400, 'strconv.ParseInt: parsing "9223372036854775808": value out of range'] },
  { parameter: "timeoutSeconds", query: "timeoutSeconds=abc", expect: [400, 'strconv.ParseInt: parsing "abc": invalid syntax'] },
  { parameter: "timeoutSeconds", query: "watch=1&timeoutSeconds=1e3", expect: [400, 'strconv.ParseInt: parsing "1e3": invalid syntax'] },
  { parameter: "timeoutSeconds", query: "watch=1&timeoutSeconds=5", expect: "stream" },
  { parameter: "pretty", query: "pretty=true", expect: "list" },
  { parameter: "resourceVersion", query: "resourceVersion=abc", expect: [400, 'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'] },
  { parameter: "resourceVersion", query: "watch=1&resourceVersion=-1", expect: [500, 'resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax'] },
  { parameter: "resourceVersion", path: `${NS}/configmaps/none`, query: "resourceVersion=18446744073709551616", expect: [500, "strconv.ParseUint: parsing \"18446744073709551616\": value out of range"] },
  { parameter: "resourceVersion", path: `${NS}/configmaps/none`, query: "resourceVersion=0", expect: [404] },
  { parameter: "includeObject", query: "includeObject=Object", accept: TABLE, expect: [200] },
  { parameter: "includeObject", query: "includeObject=Everything", accept: TABLE, expect: [400, "Unable to convert to Table as requested: includeObject: Invalid value: \"Everything\": must be 'Metadata', 'Object', 'None', or empty"] },
  { parameter: "includeObject", query: "includeObject=Everything", expect: "list" },
  { parameter: "dryRun", method: "POST", path: `${NS}/configmaps`, query: "dryRun=All", body: CM("dry"), expect: [201] },
  { parameter: "dryRun", method: "POST", path: `${NS}/configmaps`, query: "dryRun=all", body: CM("dry"), expect: [422, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["all"]: supported values: "All"'] },
  { parameter: "fieldManager", method: "POST", path: `${NS}/configmaps`, query: `fieldManager=${"m".repeat(129)}`, body: CM("fm"), expect: [422, "fieldManager: Too long: may not be more than 128 bytes"] },
  { parameter: "fieldManager", method: "POST", path: `${NS}/configmaps`, query: "fieldManager=a%07b", body: CM("fm"), expect: [422, 'fieldManager: Invalid value: "a\\u0007b": invalid character U+0007 (at position 1)'] },
  { parameter: "fieldManager", method: "PATCH", path: `${NS}/configmaps/fm`, query: "", contentType: "application/apply-patch+yaml", body: CM("fm"), expect: [422, "fieldManager: Required value: is required for apply patch"] },
  { parameter: "force", method: "PATCH", path: `${NS}/configmaps/fm`, query: "force=true", contentType: MERGE, body: {}, expect: [422, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch'] },
  { parameter: "fieldValidation", method: "POST", path: `${NS}/configmaps`, query: "fieldValidation=Loose", body: CM("fv"), expect: [422, 'fieldValidation: Unsupported value: "Loose"'] },
  { parameter: "gracePeriodSeconds", method: "DELETE", path: `${NS}/configmaps/none`, query: "gracePeriodSeconds=abc", expect: [400, 'strconv.ParseInt: parsing "abc": invalid syntax'] },
  { parameter: "gracePeriodSeconds", method: "DELETE", path: `${NS}/configmaps/none`, query: "gracePeriodSeconds=0", expect: [404] },
  { parameter: "propagationPolicy", method: "DELETE", path: `${NS}/configmaps/none`, query: "propagationPolicy=Sideways", expect: [422, 'propagationPolicy: Unsupported value: "Sideways"'] },
  { parameter: "orphanDependents", method: "DELETE", path: `${NS}/configmaps/none`, query: "orphanDependents=t&propagationPolicy=Background", expect: [422, "orphanDependents and deletionPropagation cannot be both set"] },
  { parameter: "tailLines", path: `${NS}/pods/none/log`, query: "tailLines=ten", expect: [400, 'strconv.ParseInt: parsing "ten": invalid syntax'] },
  { parameter: "tailLines", path: `${NS}/pods/none/log`, query: "tailLines=-1", expect: [422, 'PodLogOptions "none" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0'] },
  { parameter: "limitBytes", path: `${NS}/pods/none/log`, query: "limitBytes=0", expect: [422, "limitBytes: Invalid value: 0: must be greater than 0"] },
  { parameter: "sinceSeconds", path: `${NS}/pods/none/log`, query: "sinceSeconds=0", expect: [422, "sinceSeconds: Invalid value: 0: must be greater than 0"] },
  { parameter: "sinceSeconds", path: `${NS}/pods/none/log`, query: "sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z", expect: [422, "[]: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified"] },
  { parameter: "follow", path: `${NS}/pods/none/log`, query: "follow=True&tailLines=3", expect: [404, 'pods "none" not found'] },
];

/** What the server answered: a watch streams (no content-length), a list or an error is one JSON body. */
async function answer(row: Row): Promise<{ kind: "stream" | "list" | "other"; status: number; message: string }> {
  const controller = new AbortController();
  const body = row.body === undefined ? undefined : JSON.stringify(row.body);
  const headers = { ...(body !== undefined ? { "content-type": row.contentType ?? "application/json" } : {}), ...(row.accept ? { accept: row.accept } : {}) };
  const response = await fetch(`${sim.url}${row.path ?? `${NS}/configmaps`}?${row.query}`, { method: row.method ?? "GET", signal: controller.signal, headers, ...(body !== undefined ? { body } : {}) });
  if (response.status === 200 && response.headers.get("content-length") === null) {
    controller.abort();
    return { kind: "stream", status: response.status, message: "" };
  }
  const json = (await response.json()) as { kind?: string; message?: string };
  return { kind: json.kind === "ConfigMapList" ? "list" : "other", status: response.status, message: json.message ?? "" };
}

for (const row of ROWS) {
  const described = typeof row.expect === "string" ? row.expect : `${row.expect[0]}${row.expect[1] ? ` ${row.expect[1]}` : ""}`;
  test(`${row.parameter}: ${row.method ?? "GET"} ?${row.query.length > 60 ? `${row.query.slice(0, 60)}...` : row.query} → ${described}`, async () => {
    const got = await answer(row);
    if (typeof row.expect === "string") return assert.equal(got.kind, row.expect, `${got.status} ${got.message}`);
    const [status, message] = row.expect;
    assert.equal(got.status, status, got.message);
    if (message) assert.ok(got.message.includes(message), `${JSON.stringify(got.message)} should include ${JSON.stringify(message)}`);
  });
}

test("a dry-run create stored nothing", async () => {
  assert.equal(await sim.cluster.find({ apiVersion: "v1", kind: "ConfigMap" }, "default", "dry"), undefined);
});
