/**
 * Normalising an API server's answer so that two servers' answers to the same request
 * can be compared: what is by nature different on every server (uids, timestamps,
 * resourceVersions, generated names, IPs, managedFields) becomes a placeholder, and what
 * a real kubelet or real node reports (kwok's node status, container ids) is dropped —
 * each rule says why.
 */

/** Values that differ between servers by nature, replaced wherever they appear in a string. */
export class Tokens {
  readonly #map = new Map<string, string>();

  /** `value` is a server-chosen token: replace it by `placeholder` wherever it appears. */
  add(value: string, placeholder: string): void {
    if (value.length >= 4 && !this.#map.has(value)) this.#map.set(value, placeholder);
  }

  replace(text: string): string {
    const exact = this.#map.get(text);
    if (exact !== undefined) return exact;
    let out = text;
    // Longest first: a generated name's suffix may be part of a longer token.
    for (const [value, placeholder] of [...this.#map].sort((a, b) => b[0].length - a[0].length)) if (out.includes(value)) out = out.split(value).join(placeholder);
    return out;
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const UID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** Dropped wherever they appear as an object's key: each server's own bookkeeping. */
const DROPPED_KEYS = new Set([
  // Who wrote which field: its times and its order depend on each server's writers.
  "managedFields",
  // Deprecated, filled by neither server since 1.20; dropped in case one does.
  "selfLink",
]);

/**
 * First pass over an answer: every server-chosen token (uids, generated names, template
 * hashes, IPs) is recorded so that messages and references naming it are normalised too.
 */
export function collectTokens(value: unknown, tokens: Tokens): void {
  if (Array.isArray(value)) {
    for (const item of value) collectTokens(item, tokens);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  const object = value as Record<string, unknown>;
  const metadata = object.metadata;
  if (typeof metadata === "object" && metadata !== null) {
    const m = metadata as Record<string, unknown>;
    if (typeof m.uid === "string") tokens.add(m.uid, "<uid>");
    if (typeof m.generateName === "string" && typeof m.name === "string" && m.name.startsWith(m.generateName) && m.name !== m.generateName) tokens.add(m.name.slice(m.generateName.length), "<generated>");
    const labels = m.labels;
    if (typeof labels === "object" && labels !== null) {
      const hash = (labels as Record<string, unknown>)["pod-template-hash"] ?? (labels as Record<string, unknown>)["controller-revision-hash"];
      if (typeof hash === "string") tokens.add(hash, "<hash>");
    }
  }
  for (const [key, child] of Object.entries(object)) {
    // The projected ServiceAccount token volume's name ends in 5 random characters.
    if (key === "name" && typeof child === "string" && /^kube-api-access-[a-z0-9]{5}$/.test(child)) tokens.add(child.slice("kube-api-access-".length), "<generated>");
    if (typeof child === "string" && IPV4.test(child) && key !== "hostIP" && child !== "127.0.0.1") tokens.add(child, "<ip>");
    collectTokens(child, tokens);
  }
}

/** The normalised copy of an answer body (or watch event). */
export function normalise(value: unknown, tokens: Tokens): Json {
  return walk(value, tokens, []);
}

/** Numbers each server picks: node ports from its own range. */
const PICKED_NUMBERS = new Set(["nodePort", "healthCheckNodePort"]);

/** A Table's Age cells ("3s") depend on when it was asked: they become <age>. */
function withoutAges(table: Record<string, unknown>): Record<string, unknown> {
  const columns = Array.isArray(table.columnDefinitions) ? (table.columnDefinitions as { name?: unknown }[]) : [];
  const age = columns.findIndex((c) => c.name === "Age");
  if (age < 0 || !Array.isArray(table.rows)) return table;
  const rows = (table.rows as Record<string, unknown>[]).map((row) => (Array.isArray(row.cells) ? { ...row, cells: row.cells.map((cell: unknown, i: number) => (i === age ? "<age>" : cell)) } : row));
  return { ...table, rows };
}

function walk(value: unknown, tokens: Tokens, path: readonly string[]): Json {
  if (typeof value === "object" && value !== null && !Array.isArray(value) && (value as Record<string, unknown>).kind === "Table" && !path.includes("<table>")) return walk(withoutAges(value as Record<string, unknown>), tokens, [...path, "<table>"]);
  if (value === null || value === undefined) return null;
  if (typeof value === "number" && PICKED_NUMBERS.has(path.at(-1) ?? "")) return "<port>";
  if (typeof value === "boolean" || typeof value === "number") return value;
  if (typeof value === "string") return scalar(value, tokens, path);
  if (Array.isArray(value)) return value.map((item, i) => walk(item, tokens, [...path, String(i)]));
  if (typeof value !== "object") return String(value);
  const out: { [key: string]: Json } = {};
  for (const key of Object.keys(value).sort()) {
    if (DROPPED_KEYS.has(key)) continue;
    out[key] = walk((value as Record<string, unknown>)[key], tokens, [...path, key]);
  }
  return out;
}

function scalar(text: string, tokens: Tokens, path: readonly string[]): string {
  const key = path.at(-1) ?? "";
  if (key === "resourceVersion") return text === "" || text === "0" ? text : "<rv>";
  // Each server's own CA (kube-root-ca.crt, caBundle).
  if (text.startsWith("-----BEGIN ")) return "<pem>";
  if (RFC3339.test(text)) return "<time>";
  if (UID.test(text)) return "<uid>";
  // "too old resource version: 12 (34)", "Too large resource version: 56, current: 34": the numbers are each server's revisions.
  const replaced = tokens.replace(text).replace(/(resource ?version:? )\d+/gi, "$1<rv>").replace(/\((\d+)\)$/, "(<rv>)").replace(/current: \d+/, "current: <rv>");
  return replaced;
}
