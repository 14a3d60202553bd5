/**
 * Deterministic hashing for generated names and spec-hash labels. Pure and synchronous
 * (the same in Node and workerd), so a replayed snapshot yields the same names.
 */

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

/** JSON with object keys sorted, so equal values always serialise the same. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => stableStringify(v === undefined ? null : v)).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** FNV-1a 64-bit of a string's UTF-8 bytes. */
export function fnv1a64(text: string): bigint {
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * FNV_PRIME) & MASK;
  }
  return hash;
}

/** A short lowercase base-36 hash of any value (label- and name-safe), `length` characters. */
export function shortHash(value: unknown, length = 10): string {
  return fnv1a64(stableStringify(value)).toString(36).padStart(13, "0").slice(-length);
}
