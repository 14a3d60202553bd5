/**
 * The HTTP surfaces the bad-input suite feeds, each with its generator of bad requests:
 * the Worker's signed routes, the relay's TLS front (admission webhooks, the controllers'
 * APIs), its plain-HTTP API port and its ops port, and the sim's API as the system uses it.
 * Pure: built from the manifest and a few addresses; `run.ts` sends.
 */
import fc from "fast-check";
import { kindKey, snapshotPart, type Manifest } from "../../protocol/index.ts";
import {
  anyMethod,
  badBody,
  METHODS,
  contentType,
  deepText,
  garbage,
  hostileObject,
  jsonBytes,
  pathAt,
  setAt,
  wrongTarget,
  wrongTypeValue,
  type BadBody,
  type FuzzRequest,
  type Json,
  type Signing,
  type Step,
} from "./generators.ts";

/** Where a surface listens, and how to tell it is still alive. */
export type SurfaceTarget = "worker" | "front" | "api" | "ops" | "sim";

/** One surface: its name, where it listens, its generator. */
export interface Surface {
  readonly name: string;
  readonly target: SurfaceTarget;
  readonly requests: fc.Arbitrary<FuzzRequest>;
}

/** What the surfaces are built from. */
export interface SurfaceContext {
  readonly manifest: Manifest;
  /** RFC 3339, the relay's clock in the envelopes. */
  readonly now: string;
  /** A node that exists in the sim (its updates are refused by construction). */
  readonly nodeName: string;
}

/** Largest body the Worker and the relay read. */
const RELAY_LIMIT = 8 * 1024 * 1024;
/** Largest body the sim reads. */
const SIM_LIMIT = 16 * 1024 * 1024;

/** Signed routes: mostly correctly signed (so validation past the signature runs), the rest refused at the door. */
const signing: fc.Arbitrary<Signing> = fc.oneof(
  { weight: 10, arbitrary: fc.constant<Signing>("valid") },
  { weight: 2, arbitrary: fc.constant<Signing>("replay") },
  { weight: 1, arbitrary: fc.constantFrom<Signing>("none", "garbage", "stale", "wrong-secret") },
);

/** A benign pod, where a template needs an object. */
function pod(now: string): Json {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "fuzz-pod", namespace: "fuzz", uid: "00000000-0000-4000-8000-000000000001", resourceVersion: "1", creationTimestamp: now }, spec: { containers: [{ name: "c", image: "busybox" }] } };
}

/** A request of `template`'s bad bodies (and hostile objects at `slots`) to `method target`. */
function bodies(method: string, target: string, template: Json, slots: readonly Step[][], limitBytes: number, signed: boolean): fc.Arbitrary<FuzzRequest> {
  return fc.tuple(badBody(template, { limitBytes, objectSlots: slots }), contentType, signed ? signing : fc.constant<Signing>("none")).map(([bad, type, sign]) => request(method, target, bad, type, sign));
}

function request(method: string, target: string, bad: BadBody, type: string | undefined, sign: Signing): FuzzRequest {
  return { label: bad.label, method, target, contentType: type, body: bad.body, signing: sign, ...(bad.oversized ? { oversized: true } : {}) };
}

/** Requests to wrong routes and with wrong methods, with some bad body. */
function wrongRoutes(known: readonly string[], signed: boolean, limitBytes: number): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(anyMethod, wrongTarget(known), garbage({}, { limitBytes, oversized: false }), contentType, signed ? signing : fc.constant<Signing>("none"))
    .map(([method, target, bad, type, sign]) => ({ ...request(method, target, bad, type, sign), label: `wrong route ${method} ${target.slice(0, 60)}; ${bad.label}` }));
}

/** Known routes with the wrong method (a body the route would otherwise take). */
function wrongMethods(targets: readonly string[], allowed: string, signed: boolean): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(fc.constantFrom(...METHODS.filter((m) => m !== allowed && m !== "HEAD")), fc.constantFrom(...targets), signed ? signing : fc.constant<Signing>("none"))
    .map(([method, target, sign]) => ({ label: `method ${method} on ${target}`, method, target, contentType: "application/json", body: jsonBytes({}), signing: sign }));
}

/** Templates of the Worker's snapshot route, one per snapshot controller. */
function reconcileTemplates(context: SurfaceContext): { target: string; template: Json; slots: Step[][] }[] {
  return context.manifest.controllers
    .filter((c) => c.delivery === "snapshot")
    .map((c) => {
      const children: Record<string, Json> = {};
      const related: Record<string, Json> = {};
      for (const watch of c.watches) {
        const part = snapshotPart(watch.mapping);
        if (part === "children") children[kindKey(watch)] = [];
        if (part === "related") related[kindKey(watch)] = [];
      }
      const template: Json = { controller: c.name, key: "fuzz/fuzz-parent", parent: null, children, related, triggers: [], now: context.now };
      const slots: Step[][] = [["parent"], ...Object.keys(children).map((k) => ["children", k]), ...Object.keys(related).map((k) => ["related", k])];
      return { target: `/v1/reconcile/${c.name}`, template, slots };
    });
}

/** Templates of the events route, one per events controller. */
function eventsTemplates(context: SurfaceContext): { target: string; template: Json; slots: Step[][] }[] {
  return context.manifest.controllers
    .filter((c) => c.delivery === "events")
    .map((c) => {
      const kind = c.watches[0] ? kindKey(c.watches[0]) : "Pod.v1";
      const template: Json = { controller: c.name, relist: false, partialList: false, events: [{ type: "ADDED", kind, object: pod(context.now), initial: false }], now: context.now };
      return { target: `/v1/events/${c.name}`, template, slots: [["events", 0, "object"]] };
    });
}

/** An AdmissionReview as the API server sends it (the relay adds `related` and `now` before the Worker). */
function admissionReview(context: SurfaceContext, worker: boolean): Json {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: { uid: "00000000-0000-4000-8000-00000000abcd", kind: { group: "", version: "v1", kind: "Pod" }, resource: { group: "", version: "v1", resource: "pods" }, name: "fuzz-pod", namespace: "fuzz", operation: "CREATE", userInfo: { username: "fuzz" }, object: pod(context.now), oldObject: null, dryRun: false },
    ...(worker ? { related: {}, now: context.now } : {}),
  };
}

const ADMISSION_SLOTS: Step[][] = [["request", "object"], ["request", "oldObject"]];

/**
 * Valid envelopes with a value nested 1,000 to 200,000 deep inside the object under
 * review (its `spec`), where a reader that walks the object recurses: issue 28 found a
 * 100,000-deep admission body overflowing the relay's stack, which bodies deep at their
 * top level (refused by the envelope's schema first) never reached.
 */
function deepInEnvelope(method: string, target: string, envelope: Json, signed: boolean): fc.Arbitrary<FuzzRequest> {
  const marker = "__fuzz_deep__";
  const text = JSON.stringify(setAt(envelope, ["request", "object", "spec"], marker));
  return fc.tuple(fc.integer({ min: 1_000, max: 200_000 }), fc.boolean(), signed ? signing : fc.constant<Signing>("none")).map(([depth, objects, sign]) => ({
    label: `${depth} ${objects ? "objects" : "arrays"} deep at request.object.spec`,
    method,
    target,
    contentType: "application/json",
    body: new TextEncoder().encode(text.replace(JSON.stringify(marker), deepText(depth, objects))),
    signing: sign,
  }));
}

/** A body a controller's API would parse: hostile objects and wrong types as JSON text. */
const apiBodyText: fc.Arbitrary<string> = fc.oneof(
  hostileObject.map((o) => JSON.stringify(o)),
  fc.record({ namespace: fc.oneof(fc.constantFrom("fuzz", "default", "", "../x"), fc.string()), coordinator: fc.oneof(fc.constantFrom("fuzz-absent", ""), fc.string()), learners: wrongTypeValue, collectors: wrongTypeValue, replicas: wrongTypeValue }).map((o) => JSON.stringify(o)),
  (fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 100 }),
);

/** What a client sends a controller's API (the relay's front and API port, and the Worker's API route inside an envelope). */
function apiClientRequests(context: SurfaceContext): fc.Arbitrary<FuzzRequest> | undefined {
  const prefixes = context.manifest.controllers.flatMap((c) => c.apis.map((a) => a.pathPrefix));
  if (prefixes.length === 0) return undefined;
  const query = fc.oneof(
    fc.constant(""),
    fc.constantFrom("?namespace=fuzz", "?namespace=..%2F..", "?coordinator=fuzz-absent&namespace=fuzz", "?name=%ZZ", "?namespace=" + "a".repeat(300), "?aggregator=x&aggregator=y", "?namespace=fuzz&coordinator=" + "%00"),
  );
  const path = fc.tuple(fc.constantFrom(...prefixes), fc.constantFrom("", "/", "/failed", "/failed/", "/x", "/../x", "/%2e%2e")).map(([p, s]) => `${p}${s}`);
  const text = fc.oneof(apiBodyText.map((t) => ({ label: `API body ${t.slice(0, 40)}`, body: new TextEncoder().encode(t) })), garbage({ namespace: "fuzz", coordinator: "fuzz-absent" }, { limitBytes: RELAY_LIMIT }));
  return fc.tuple(anyMethod, path, query, text, contentType).map(([method, p, q, bad, type]) => request(method, `${p}${q}`, bad, type, "none"));
}

/** The Worker's API route: envelopes of client requests. */
function workerApiRequests(context: SurfaceContext): fc.Arbitrary<FuzzRequest>[] {
  return context.manifest.controllers.flatMap((c) =>
    c.apis.map((api) => {
      const template: Json = { id: "fuzz-request-1", method: "POST", path: api.pathPrefix, query: { namespace: "fuzz" }, body: JSON.stringify({ namespace: "fuzz", coordinator: "fuzz-absent" }), related: { "Pod.v1": [] }, now: context.now };
      const inner = fc.tuple(apiBodyText, fc.constantFrom("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"), signing).map(([text, method, sign]): FuzzRequest => ({
        label: `API envelope ${method} body ${text.slice(0, 40)}`,
        method: "POST",
        target: `/v1/api/${api.name}`,
        contentType: "application/json",
        // A fresh id per request, as the relay sends, so the retry window does not answer from the ledger.
        body: jsonBytes({ ...(template as Record<string, Json>), id: `fuzz-${text.length}-${method}`, method, body: text }),
        signing: sign,
      }));
      return fc.oneof(bodies("POST", `/v1/api/${api.name}`, template, [["related", "Pod.v1"]], RELAY_LIMIT, true), inner);
    }),
  );
}

/** The Worker's signed routes, one surface each. */
function workerSurfaces(context: SurfaceContext): Surface[] {
  const reconcile = reconcileTemplates(context);
  const events = eventsTemplates(context);
  const hooks = context.manifest.controllers.flatMap((c) => c.webhooks.map((w) => w.name));
  const apis = context.manifest.controllers.flatMap((c) => c.apis.map((a) => a.name));
  const known = ["/v1/manifest", "/v1/outbox", "/v1/claims/release", ...reconcile.map((r) => r.target), ...events.map((e) => e.target), ...hooks.map((h) => `/v1/admission/${h}`), ...apis.map((a) => `/v1/api/${a}`)];
  const surfaces: Surface[] = [];
  const add = (name: string, arbitraries: fc.Arbitrary<FuzzRequest>[]): void => {
    if (arbitraries.length > 0) surfaces.push({ name, target: "worker", requests: fc.oneof(...arbitraries) });
  };
  const unknownNames = (route: string): fc.Arbitrary<FuzzRequest> => bodies("POST", `/v1/${route}/no-such-controller`, {}, [], RELAY_LIMIT, true);
  add("worker POST /v1/reconcile/*", [...reconcile.map((r) => bodies("POST", r.target, r.template, r.slots, RELAY_LIMIT, true)), unknownNames("reconcile"), ...(events[0] ? [bodies("POST", `/v1/reconcile/${events[0].target.split("/").pop() ?? ""}`, reconcile[0]?.template ?? {}, [], RELAY_LIMIT, true)] : [])]);
  add("worker POST /v1/events/*", [...events.map((e) => bodies("POST", e.target, e.template, e.slots, RELAY_LIMIT, true)), unknownNames("events")]);
  add("worker POST /v1/admission/*", [...hooks.map((h) => bodies("POST", `/v1/admission/${h}`, admissionReview(context, true), ADMISSION_SLOTS, RELAY_LIMIT, true)), ...hooks.map((h) => deepInEnvelope("POST", `/v1/admission/${h}`, admissionReview(context, true), true)), unknownNames("admission")]);
  add("worker POST /v1/api/*", [...workerApiRequests(context), unknownNames("api")]);
  add("worker POST /v1/claims/release", [bodies("POST", "/v1/claims/release", { claims: [{ namespace: "fuzz", key: "api/fuzz/absent" }], now: context.now }, [], RELAY_LIMIT, true)]);
  const badQuery = fc.tuple(fc.constantFrom("-1", "abc", "1.5", "", "0x10", "1e3", "9".repeat(400), "00", "%ZZ"), fc.constantFrom("61", "-1", "abc", "1.5", "Infinity", "", "1e9", "0", "NaN"));
  add("worker GET /v1/outbox", [
    fc.tuple(badQuery, garbage({}, { limitBytes: RELAY_LIMIT, oversized: false }), signing).map(([[cursor, wait], bad, sign]): FuzzRequest => ({ label: `outbox cursor=${cursor.slice(0, 20)} wait=${wait}; ${bad.label}`, method: "GET", target: `/v1/outbox?cursor=${cursor}&wait=${wait}`, contentType: undefined, body: bad.body, signing: sign })),
  ]);
  add("worker wrong routes/methods", [wrongRoutes(known, true, RELAY_LIMIT), wrongMethods(known.filter((k) => k !== "/v1/outbox" && k !== "/v1/manifest"), "POST", true), wrongMethods(["/v1/outbox", "/v1/manifest"], "GET", true)]);
  return surfaces;
}

/** The relay's TLS front: admission reviews as the API server sends them, and the controllers' APIs. */
function frontSurfaces(context: SurfaceContext): Surface[] {
  const hooks = context.manifest.controllers.flatMap((c) => c.webhooks.map((w) => w.name));
  const out: Surface[] = [];
  if (hooks.length > 0) {
    const known = hooks.map((h) => `/admission/${h}`);
    out.push({
      name: "relay front POST /admission/*",
      target: "front",
      requests: fc.oneof(
        { weight: 6, arbitrary: fc.oneof(...hooks.map((h) => bodies("POST", `/admission/${h}`, admissionReview(context, false), ADMISSION_SLOTS, RELAY_LIMIT, false))) },
        { weight: 1, arbitrary: fc.oneof(...hooks.map((h) => deepInEnvelope("POST", `/admission/${h}`, admissionReview(context, false), false))) },
        { weight: 1, arbitrary: bodies("POST", "/admission/no-such-webhook", admissionReview(context, false), ADMISSION_SLOTS, RELAY_LIMIT, false) },
        { weight: 1, arbitrary: wrongRoutes(known, false, RELAY_LIMIT) },
        { weight: 1, arbitrary: wrongMethods(known, "POST", false) },
      ),
    });
  }
  const apis = apiClientRequests(context);
  if (apis) out.push({ name: "relay front APIs", target: "front", requests: apis });
  return out;
}

/** The relay's plain-HTTP API port and its ops port. */
function relayPlainSurfaces(context: SurfaceContext): Surface[] {
  const out: Surface[] = [];
  const apis = apiClientRequests(context);
  const known = ["/healthz", "/admission/x", ...context.manifest.controllers.flatMap((c) => c.apis.map((a) => a.pathPrefix))];
  out.push({ name: "relay API port", target: "api", requests: apis ? fc.oneof({ weight: 3, arbitrary: apis }, { weight: 1, arbitrary: wrongRoutes(known, false, RELAY_LIMIT) }) : wrongRoutes(known, false, RELAY_LIMIT) });
  const ops = ["/livez", "/healthz", "/readyz", "/metrics"];
  out.push({
    name: "relay ops port",
    target: "ops",
    requests: fc.oneof(
      fc.tuple(anyMethod, fc.constantFrom(...ops), fc.constantFrom("", "?x=%ZZ", "?name[]=1"), garbage({}, { limitBytes: RELAY_LIMIT }), contentType).map(([method, path, q, bad, type]) => request(method, `${path}${q}`, bad, type, "none")),
      wrongRoutes(ops, false, RELAY_LIMIT),
    ),
  });
  return out;
}

const INVALID_NAME = "FUZZ_Invalid.Name";
const OTHER_NAMESPACE = "fuzz-other";

/**
 * The sim's API, as the system calls it: creates, updates, status writes, patches of
 * each type, bindings and deletes, with bad bodies and content-types. Every request is
 * refused by construction, so "changed" counts only what the sim wrongly accepts: a
 * create names an invalid name in a namespace other than the URL's (two faults, and a
 * mutation fixes at most one); a write to an existing object carries a stale
 * resourceVersion (or, for a JSON patch, starts with a failing `test`); everything
 * else goes to objects that do not exist under names that cannot.
 */
function simSurfaces(context: SurfaceContext): Surface[] {
  const node = context.nodeName;
  const createTargets: { path: string; template: Json }[] = [
    { path: "/api/v1/namespaces/default/pods", template: { apiVersion: "v1", kind: "Pod", metadata: { name: INVALID_NAME, namespace: OTHER_NAMESPACE, labels: { app: "fuzz" } }, spec: { containers: [{ name: "c", image: "busybox" }] } } },
    { path: "/api/v1/namespaces/default/services", template: { apiVersion: "v1", kind: "Service", metadata: { name: INVALID_NAME, namespace: OTHER_NAMESPACE }, spec: { selector: { app: "fuzz" }, ports: [{ port: 80 }] } } },
    { path: "/apis/diengine.opendilab.org/v1alpha1/namespaces/default/nervexjobs", template: { apiVersion: "diengine.opendilab.org/v1alpha1", kind: "NerveXJob", metadata: { name: INVALID_NAME, namespace: OTHER_NAMESPACE }, spec: { coordinator: { template: { spec: { containers: [{ name: "c", image: "x" }] } } } } } },
  ];
  const creates = createTargets.map(({ path, template }) =>
    fc.tuple(fc.oneof({ weight: 4, arbitrary: badBody(template, { limitBytes: SIM_LIMIT }) }, { weight: 2, arbitrary: hostileObject.map((o): BadBody => ({ label: "hostile object", body: jsonBytes(setAt(setAt(o, ["metadata", "name"], INVALID_NAME), ["metadata", "namespace"], OTHER_NAMESPACE)) })) }), contentType).map(([bad, type]) => request("POST", path, bad, type ?? "application/json", "none")),
  );
  // A stale resourceVersion, set after the mutation so that no mutation removes it.
  const stale = (bad: BadBody): BadBody => {
    try {
      const parsed: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bad.body));
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return bad;
      const object = parsed as Json;
      const meta = pathAt(object, ["metadata"]);
      const withMeta = meta !== null && typeof meta === "object" && !Array.isArray(meta) ? object : setAt(object, ["metadata"], {});
      return { label: `${bad.label}; stale resourceVersion`, body: jsonBytes(setAt(setAt(withMeta, ["metadata", "resourceVersion"], "1"), ["metadata", "name"], node)) };
    } catch {
      // Not JSON, or nested too deep to write back: sent as it is (refused as such).
      return bad;
    }
  };
  const nodeTemplate: Json = { apiVersion: "v1", kind: "Node", metadata: { name: node, resourceVersion: "1", labels: { fuzz: "x" } }, spec: { unschedulable: true }, status: { capacity: { cpu: "1" } } };
  const nodePath = `/api/v1/nodes/${node}`;
  const updates = fc
    .tuple(fc.constantFrom(nodePath, `${nodePath}/status`), badBody(nodeTemplate, { limitBytes: SIM_LIMIT, oversized: false }), fc.constantFrom("application/json", "application/yaml", undefined))
    .map(([path, bad, type]) => request("PUT", path, stale(bad), type, "none"));
  const patchTypes = ["application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml", "application/json-patch+json", "application/json", "text/plain", "application/vnd.kubernetes.protobuf"];
  const patches = fc
    .tuple(fc.constantFrom(nodePath, `${nodePath}/status`), badBody(nodeTemplate, { limitBytes: SIM_LIMIT, oversized: false }), fc.constantFrom(...patchTypes), fc.array(wrongTypeValue, { maxLength: 3 }))
    .map(([path, bad, type, ops]) => {
      if (type !== "application/json-patch+json") return request("PATCH", `${path}?fieldManager=fuzz`, stale(bad), type, "none");
      // A JSON patch that starts with a failing test: whatever follows must not apply.
      const body = jsonBytes([{ op: "test", path: "/metadata/uid", value: "fuzz-not-the-uid" }, { op: "replace", path: "/spec/unschedulable", value: true }, ...ops]);
      return request("PATCH", path, { label: `json patch with a failing test then ${JSON.stringify(ops).slice(0, 40)}`, body }, type, "none");
    });
  const absent = ["/api/v1/namespaces/default/pods/fuzz-absent", "/api/v1/namespaces/default/pods/fuzz-absent/status", "/api/v1/namespaces/default/pods/fuzz-absent/binding", "/apis/diengine.opendilab.org/v1alpha1/namespaces/default/nervexjobs/fuzz-absent/status", `/api/v1/namespaces/default/pods/${INVALID_NAME}`];
  const toAbsent = fc
    .tuple(fc.constantFrom("POST", "PUT", "PATCH", "DELETE"), fc.constantFrom(...absent), badBody(pod(context.now), { limitBytes: SIM_LIMIT, oversized: false }), contentType)
    // A server-side apply to an absent object creates it: those name an invalid name instead.
    .map(([method, path, bad, type]) => request(method, method === "PATCH" && type === "application/apply-patch+yaml" ? path.replace("fuzz-absent", INVALID_NAME) : path, bad, type, "none"));
  const bindings = fc
    .tuple(badBody({ apiVersion: "v1", kind: "Binding", metadata: { name: "fuzz-absent" }, target: { apiVersion: "v1", kind: "Node", name: node } }, { limitBytes: SIM_LIMIT, oversized: false }), contentType)
    .map(([bad, type]) => request("POST", "/api/v1/namespaces/default/pods/fuzz-absent/binding", bad, type, "none"));
  const known = ["/api/v1/namespaces/default/pods", nodePath, "/apis/diengine.opendilab.org/v1alpha1/namespaces/default/nervexjobs", "/api/v1/namespaces/default/pods/fuzz-absent/binding"];
  // Wrong routes, but no DELETE (of a collection: a valid request that deletes everything),
  // no PATCH (a server-side apply creates what is absent) and no PUT of the node.
  const routes = wrongRoutes(known, false, SIM_LIMIT).filter((r) => r.method !== "DELETE" && r.method !== "PATCH" && !(r.method === "PUT" && r.target.startsWith(nodePath)));
  return [
    { name: "sim creates", target: "sim", requests: fc.oneof(...creates) },
    { name: "sim updates/status/patches", target: "sim", requests: fc.oneof(updates, patches) },
    { name: "sim absent objects/bindings", target: "sim", requests: fc.oneof(toAbsent, bindings) },
    { name: "sim wrong routes/methods", target: "sim", requests: routes },
  ];
}

/** Every surface, in the order they are fed. */
export function surfaces(context: SurfaceContext): Surface[] {
  return [...workerSurfaces(context), ...frontSurfaces(context), ...relayPlainSurfaces(context), ...simSurfaces(context)];
}
