/**
 * Property-based generators (fast-check) of invalid HTTP input: bodies made from a valid
 * template by one mutation (a field removed, of the wrong type, a huge string, nested too
 * deep, a hostile Kubernetes object in an otherwise valid envelope), bodies that are not
 * JSON at all (garbage text, bad UTF-8, nesting past any limit, over the size limit),
 * wrong content-types, and wrong routes and methods. Pure: the surfaces give templates,
 * the runner signs and sends.
 */
import fc from "fast-check";

/** JSON as generated and mutated here. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** How a request to a signed route is signed (the runner does it; see `signing.ts`). */
export type Signing = "none" | "garbage" | "stale" | "wrong-secret" | "valid" | "replay";

/** One bad request, before signing. */
export interface FuzzRequest {
  /** What is wrong with it, e.g. `wrong-type children.Pod.v1`. */
  readonly label: string;
  readonly method: string;
  /** Path and query, ASCII only, as on the request line. */
  readonly target: string;
  readonly contentType: string | undefined;
  readonly body: Uint8Array;
  readonly signing: Signing;
  /** Over the surface's limit (see `BadBody`). */
  readonly oversized?: boolean;
}

/** A body and what is wrong with it. */
export interface BadBody {
  readonly label: string;
  readonly body: Uint8Array;
  /** Over the surface's limit: the server may refuse it unread and close the connection. */
  readonly oversized?: boolean;
}

/** A step of a path into JSON. */
export type Step = string | number;

const encoder = new TextEncoder();

/** The bytes of `value` as JSON. */
export function jsonBytes(value: Json): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** Every path to a value inside `value` (the root is `[]`), depth first, at most `limit`. */
export function jsonPaths(value: Json, limit = 500): Step[][] {
  const out: Step[][] = [];
  const walk = (node: Json, path: Step[]): void => {
    if (out.length >= limit) return;
    out.push(path);
    if (Array.isArray(node)) node.forEach((child, index) => walk(child, [...path, index]));
    else if (node !== null && typeof node === "object") for (const [key, child] of Object.entries(node)) walk(child, [...path, key]);
  };
  walk(value, []);
  return out;
}

/** Marks a value to remove in `setAt`. */
export const REMOVE: unique symbol = Symbol("remove");

/** A copy of `value` with the value at `path` replaced (or removed with `REMOVE`). */
export function setAt(value: Json, path: readonly Step[], replacement: Json | typeof REMOVE): Json {
  const [head, ...rest] = path;
  if (head === undefined) return replacement === REMOVE ? null : replacement;
  if (Array.isArray(value) && typeof head === "number") {
    if (rest.length === 0 && replacement === REMOVE) return value.filter((_, index) => index !== head);
    return value.map((child, index) => (index === head ? setAt(child, rest, replacement) : child));
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value) && typeof head === "string") {
    if (rest.length === 0 && replacement === REMOVE) return Object.fromEntries(Object.entries(value).filter(([key]) => key !== head));
    return { ...value, [head]: setAt(value[head] ?? null, rest, replacement) };
  }
  return value;
}

/** `a.b.0.c` for a path. */
export function pathText(path: readonly Step[]): string {
  return path.length === 0 ? "(root)" : path.join(".");
}

/** Arrays nested `depth` deep around `inner`. */
export function nested(depth: number, inner: Json = 1): Json {
  let value: Json = inner;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

/** A value of every JSON type, and some numbers and strings parsers trip on. */
export const wrongTypeValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, "", "x", "0", "-1", "NaN", "null", "true", "1e999", "2026-13-45T99:99:99Z", [], {}, [null], { "": null }),
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
);

/** Strings a Kubernetes name, label or path field should refuse or survive. */
const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("", " ", "..", "../../etc/passwd", "a/b", "UPPER_case", "-leading", "trailing-", "a".repeat(64), "a".repeat(254), "ñame", "\u0000nul", "new\nline", "\u202eRTL", "%2e%2e", "${jndi:x}", "<script>", "__proto__", "constructor", "toString", "kube-system", "0".repeat(400)),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 20 }),
);

/** Keys that poison naive object handling. */
const hostileKey: fc.Arbitrary<string> = fc.oneof(fc.constantFrom("__proto__", "constructor", "prototype", "hasOwnProperty", "", "a.b", "a/b", "$ref", "kubernetes.io/x", "x".repeat(300)), fc.string({ maxLength: 12 }));

/** A map with hostile keys and values, sometimes many of them. */
const hostileMap: fc.Arbitrary<Json> = fc.oneof(
  fc.dictionary(hostileKey, fc.oneof(hostileString as fc.Arbitrary<Json>, wrongTypeValue), { maxKeys: 6 }) as fc.Arbitrary<Json>,
  fc.integer({ min: 500, max: 3000 }).map((n): Json => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]))),
  wrongTypeValue,
);

/** An ownerReference the relay or a controller might trust. */
const hostileOwner: fc.Arbitrary<Json> = fc.record({
  apiVersion: fc.oneof(fc.constantFrom("v1", "apps/v1", "sedna.io/v1alpha1", "diengine.opendilab.org/v1alpha1"), hostileString),
  kind: fc.oneof(fc.constantFrom("Pod", "Node", "NerveXJob", "FederatedLearningJob", "JointInferenceService"), hostileString),
  name: hostileString,
  uid: fc.oneof(hostileString, fc.uuid()),
  controller: fc.oneof(fc.constant(true), wrongTypeValue),
  blockOwnerDeletion: wrongTypeValue,
}) as fc.Arbitrary<Json>;

/**
 * A Kubernetes object that should be refused or survived: every field a reader might
 * trust is present but wrong (names too long or with slashes, numeric strings, prototype
 * keys, absurd counts, owner references to anything, timestamps that are not times).
 */
export const hostileObject: fc.Arbitrary<Json> = fc
  .record(
    {
      apiVersion: fc.oneof(fc.constantFrom("v1", "sedna.io/v1alpha1", "diengine.opendilab.org/v1alpha1", "scheduling.x-k8s.io/v1alpha1", "apps/v1"), hostileString),
      kind: fc.oneof(fc.constantFrom("Pod", "Node", "Service", "NerveXJob", "FederatedLearningJob", "JointInferenceService", "PodGroup", "Secret", "Model", "Dataset"), hostileString),
      metadata: fc.record(
        {
          name: fc.oneof(hostileString, fc.constantFrom("fuzz-object")),
          namespace: fc.oneof(hostileString, fc.constantFrom("default", "fuzz")),
          uid: fc.oneof(hostileString, fc.uuid()),
          resourceVersion: fc.oneof(hostileString, fc.constantFrom("1", "-1", "99999999999999999999")),
          generation: wrongTypeValue,
          labels: hostileMap,
          annotations: hostileMap,
          ownerReferences: fc.oneof(fc.array(hostileOwner, { maxLength: 3 }), wrongTypeValue),
          finalizers: fc.oneof(fc.array(hostileString, { maxLength: 4 }), wrongTypeValue),
          deletionTimestamp: fc.oneof(hostileString, wrongTypeValue, fc.constant("2020-01-01T00:00:00Z")),
          creationTimestamp: fc.oneof(hostileString, wrongTypeValue),
        },
        { requiredKeys: ["name"] },
      ),
      spec: fc.oneof(
        wrongTypeValue,
        fc.record(
          {
            nodeName: fc.oneof(hostileString, wrongTypeValue),
            schedulerName: fc.oneof(hostileString, fc.constantFrom("gang-scheduler", "default-scheduler")),
            replicas: wrongTypeValue,
            containers: fc.oneof(wrongTypeValue, fc.array(fc.record({ name: hostileString, image: hostileString, resources: hostileMap }) as fc.Arbitrary<Json>, { maxLength: 3 })),
            selector: hostileMap,
            template: fc.oneof(wrongTypeValue, fc.record({ metadata: fc.record({ labels: hostileMap }), spec: hostileMap }) as fc.Arbitrary<Json>),
          },
          { requiredKeys: [] },
        ),
      ),
      status: fc.oneof(wrongTypeValue, hostileMap),
    },
    { requiredKeys: ["apiVersion", "kind", "metadata"] },
  )
  .map((object) => object as Json);

/** Content-types a client might send, most of them wrong for the route. */
export const contentType: fc.Arbitrary<string | undefined> = fc.constantFrom(
  undefined,
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=utf-16",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=fuzz",
  "application/yaml",
  "application/vnd.kubernetes.protobuf",
  "application/cbor",
  "application/merge-patch+json",
  "application/json-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
  "*/*",
  "garbage",
);

/** Invalid UTF-8 sequences: a lone continuation byte, overlong, surrogate halves, 0xFF. */
const BAD_UTF8: readonly (readonly number[])[] = [[0x80], [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xff, 0xfe], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc3]];
const PLACEHOLDER = "\u0001FUZZ\u0001";

/** `template` with the string at `path` replaced by invalid UTF-8 bytes (inside its quotes). */
export function badUtf8Body(template: Json, path: readonly Step[], bad: readonly number[]): Uint8Array {
  const bytes = jsonBytes(setAt(template, path, PLACEHOLDER));
  const marker = jsonBytes(PLACEHOLDER).subarray(1, -1);
  const at = indexOf(bytes, marker);
  if (at < 0) return new Uint8Array([...bytes, ...bad]);
  return new Uint8Array([...bytes.subarray(0, at), ...bad, ...bytes.subarray(at + marker.length)]);
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** `[[[...1...]]]` (or `{"a":{"a":...}}`) `depth` deep, as text: past any parser's patience. */
export function deepText(depth: number, objects: boolean): string {
  return objects ? `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}` : `${"[".repeat(depth)}1${"]".repeat(depth)}`;
}

/** A JSON body of exactly `size` bytes (`{"pad":"xxx…"}`). */
export function paddedBody(size: number): Uint8Array {
  const out = new Uint8Array(Math.max(size, 11)).fill(0x78);
  out.set(encoder.encode('{"pad":"'), 0);
  out.set(encoder.encode('"}'), out.length - 2);
  return out;
}

/** What shapes a surface's bad bodies. */
export interface BodyOptions {
  /** The largest body the surface accepts: oversized bodies are a little over it. */
  readonly limitBytes: number;
  /** Paths of the template where a Kubernetes object sits: hostile objects go there. */
  readonly objectSlots?: readonly (readonly Step[])[];
  /** Send oversized bodies at all (they cost the most time). Default true. */
  readonly oversized?: boolean;
}

/** One mutation of `template`: a field removed, of the wrong type, a huge string, nested too deep. */
export function mutated(template: Json): fc.Arbitrary<BadBody> {
  const paths = jsonPaths(template);
  const path = fc.constantFrom(...paths);
  const inner = paths.filter((p) => p.length > 0);
  return fc.oneof(
    // Picked from the inner paths, not filtered: a filter that never passes never ends.
    ...(inner.length > 0 ? [fc.constantFrom(...inner).map((p): BadBody => ({ label: `missing ${pathText(p)}`, body: jsonBytes(setAt(template, p, REMOVE)) }))] : []),
    fc.tuple(path, wrongTypeValue).map(([p, value]): BadBody => ({ label: `wrong type at ${pathText(p)}: ${JSON.stringify(value).slice(0, 40)}`, body: jsonBytes(setAt(template, p, value)) })),
    fc.tuple(path, fc.integer({ min: 64 * 1024, max: 2 * 1024 * 1024 })).map(([p, size]): BadBody => ({ label: `huge string (${size} chars) at ${pathText(p)}`, body: jsonBytes(setAt(template, p, "x".repeat(size))) })),
    fc.tuple(path, fc.integer({ min: 65, max: 2000 })).map(([p, depth]): BadBody => ({ label: `nested ${depth} deep at ${pathText(p)}`, body: jsonBytes(setAt(template, p, nested(depth))) })),
    fc.tuple(path, hostileKey, wrongTypeValue).map(([p, key, value]): BadBody => {
      const at = pathAt(template, p);
      // A computed key makes an own property, `__proto__` included, and JSON.stringify writes it.
      const extended = at !== null && typeof at === "object" && !Array.isArray(at) ? setAt(template, p, { ...at, [key]: value }) : setAt(template, p, { [key]: value });
      return { label: `extra key ${JSON.stringify(key).slice(0, 30)} at ${pathText(p)}`, body: jsonBytes(extended) };
    }),
  );
}

/** The value at `path`, or null. */
export function pathAt(value: Json, path: readonly Step[]): Json {
  let at: Json = value;
  for (const step of path) {
    if (Array.isArray(at) && typeof step === "number") at = at[step] ?? null;
    else if (at !== null && typeof at === "object" && !Array.isArray(at) && typeof step === "string") at = at[step] ?? null;
    else return null;
  }
  return at;
}

/** Bodies that are not JSON of the template at all. */
export function garbage(template: Json, options: BodyOptions): fc.Arbitrary<BadBody> {
  const templateText = JSON.stringify(template);
  const stringPaths = jsonPaths(template).filter((p) => typeof pathAt(template, p) === "string");
  const arbitraries: fc.WeightedArbitrary<BadBody>[] = [
    { weight: 3, arbitrary: (fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<Json>).map((value): BadBody => ({ label: `other JSON: ${JSON.stringify(value).slice(0, 40)}`, body: jsonBytes(value) })) },
    { weight: 2, arbitrary: fc.string({ maxLength: 200 }).map((text): BadBody => ({ label: `text: ${JSON.stringify(text.slice(0, 30))}`, body: encoder.encode(`{${text}`) })) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: Math.max(1, templateText.length - 1) }).map((cut): BadBody => ({ label: `truncated at ${cut}`, body: encoder.encode(templateText.slice(0, cut)) })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 512 }).map((bytes): BadBody => ({ label: `${bytes.length} random bytes`, body: bytes })) },
    { weight: 1, arbitrary: fc.constantFrom<BadBody>({ label: "empty body", body: new Uint8Array(0) }, { label: "null", body: encoder.encode("null") }, { label: "BOM then JSON", body: new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode(templateText)]) }, { label: "two JSON documents", body: encoder.encode(`${templateText}${templateText}`) }, { label: "NaN literal", body: encoder.encode(`{"a":NaN}`) }) },
    { weight: 2, arbitrary: fc.tuple(fc.integer({ min: 65, max: 200_000 }), fc.boolean()).map(([depth, objects]): BadBody => ({ label: `${depth} ${objects ? "objects" : "arrays"} deep`, body: encoder.encode(deepText(depth, objects)) })) },
  ];
  if (stringPaths.length > 0) {
    arbitraries.push({ weight: 2, arbitrary: fc.tuple(fc.constantFrom(...stringPaths), fc.constantFrom(...BAD_UTF8)).map(([p, bad]): BadBody => ({ label: `bad UTF-8 at ${pathText(p)}`, body: badUtf8Body(template, p, bad) })) });
  }
  if (options.oversized !== false) {
    arbitraries.push({ weight: 1, arbitrary: fc.integer({ min: 1, max: 64 * 1024 }).map((over): BadBody => ({ label: `oversized (limit + ${over} bytes)`, body: paddedBody(options.limitBytes + over), oversized: true })) });
  }
  return fc.oneof(...arbitraries);
}

/** `template` with a hostile Kubernetes object at one of its object slots: the envelope stays valid. */
export function hostileEnvelope(template: Json, slots: readonly (readonly Step[])[]): fc.Arbitrary<BadBody> {
  // A slot holding an array (a snapshot's children of one kind) gets the object as its one item.
  return fc.tuple(fc.constantFrom(...slots), hostileObject).map(([slot, object]): BadBody => ({ label: `hostile object at ${pathText(slot)}`, body: jsonBytes(setAt(template, slot, Array.isArray(pathAt(template, slot)) ? [object] : object)) }));
}

/** Every kind of bad body for `template`: mutations, garbage, and (with slots) hostile objects. */
export function badBody(template: Json, options: BodyOptions): fc.Arbitrary<BadBody> {
  const slots = options.objectSlots ?? [];
  return fc.oneof(
    { weight: 5, arbitrary: mutated(template) },
    { weight: 3, arbitrary: garbage(template, options) },
    ...(slots.length > 0 ? [{ weight: 4, arbitrary: hostileEnvelope(template, slots) }] : []),
  );
}

/** Methods: the usual ones, the rarely served, and nonsense (all valid HTTP tokens). */
export const METHODS: readonly string[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND", "PURGE", "FUZZ"];
/** One of `METHODS`. */
export const anyMethod: fc.Arbitrary<string> = fc.constantFrom(...METHODS);

/** Request targets near `known` that no route should serve, or serve as an error (ASCII only). */
export function wrongTarget(known: readonly string[]): fc.Arbitrary<string> {
  const base = fc.constantFrom(...known);
  const junk = fc.stringMatching(/^[A-Za-z0-9._~%!$&'()*+,;=:@-]{0,24}$/);
  return fc.oneof(
    fc.tuple(base, junk).map(([path, suffix]) => `${path}/${suffix}`),
    fc.tuple(base, junk).map(([path, suffix]) => `${path}${suffix}`),
    base.map((path) => `${path}?${["cursor=%ZZ", "a=1&a=2", "=&&=", "wait=-1", "namespace=..%2f..", "x=" + "y".repeat(4000)].join("&")}`),
    base.map((path) => path.replace(/\/[^/]*$/, "/%ZZ")),
    base.map((path) => path.replace(/\/[^/]*$/, "/%00")),
    base.map((path) => path.replace(/\/[^/]*$/, "/%E0%A4%A")),
    base.map((path) => `/${path.split("/").filter(Boolean).map(encodeURIComponent).join("//")}`),
    base.map((path) => `/..${path}`),
    base.map((path) => path.toUpperCase()),
    fc.constantFrom("/", "//", "/%2e%2e/%2e%2e/etc/passwd", "/.well-known/x", `/${"a".repeat(8000)}`, "/v1", "/v2/reconcile/x", "/*", "/favicon.ico"),
  );
}
