/**
 * Deterministic hashing for generated names and spec-hash labels. Pure and synchronous
 * (the same in Node and workerd), so a replayed snapshot yields the same names.
 */

/** The FNV-1a 64-bit offset basis, as its high and low 32-bit words. */
const FNV_OFFSET_HI = 0xcbf29ce4;
const FNV_OFFSET_LO = 0x84222325;
/** The FNV 64-bit prime is 2^40 + 435: a product is a shift and a small multiplication. */
const FNV_PRIME_LOW = 435;
const TWO_32 = 4_294_967_296;
const encoder = new TextEncoder();

/** One array or object being serialised: its rendered members so far and those still to do. */
interface Frame {
  readonly prefix: string;
  readonly open: string;
  readonly close: string;
  readonly members: readonly (readonly [string, unknown])[];
  readonly parts: string[];
  index: number;
}

function frameOf(value: unknown, prefix: string): Frame | undefined {
  if (Array.isArray(value)) {
    return { prefix, open: "[", close: "]", members: value.map((v: unknown) => ["", v === undefined ? null : v] as const), parts: [], index: 0 };
  }
  if (typeof value !== "object" || value === null) return undefined;
  const members = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => [`${JSON.stringify(k)}:`, v] as const);
  return { prefix, open: "{", close: "}", members, parts: [], index: 0 };
}

/** Nesting the recursive serialisation handles; deeper values take the iterative one. */
const RECURSION_LIMIT = 200;

/** `value` serialised recursively, or undefined when it nests deeper than {@link RECURSION_LIMIT}. */
function recursive(value: unknown, depth: number): string | undefined {
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  if (depth > RECURSION_LIMIT) return undefined;
  if (Array.isArray(value)) {
    const parts: string[] = [];
    for (const item of value) {
      const rendered = recursive(item === undefined ? null : item, depth + 1);
      if (rendered === undefined) return undefined;
      parts.push(rendered);
    }
    return `[${parts.join(",")}]`;
  }
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item === undefined) continue;
    const rendered = recursive(item, depth + 1);
    if (rendered === undefined) return undefined;
    parts.push(`${JSON.stringify(key)}:${rendered}`);
  }
  return `{${parts.join(",")}}`;
}

/**
 * JSON with object keys sorted, so equal values always serialise the same. Recursive for
 * the values reconciles hash (a third of the cost of the iterative walk); anything nested
 * deeper than {@link RECURSION_LIMIT} takes an explicit stack, so no nesting depth a client
 * sends can overflow the call stack.
 */
export function stableStringify(value: unknown): string {
  return recursive(value, 0) ?? iterativeStringify(value);
}

function iterativeStringify(value: unknown): string {
  const root = frameOf(value, "");
  if (!root) return JSON.stringify(value) ?? "null";
  const stack: Frame[] = [root];
  for (;;) {
    const top = stack[stack.length - 1] as Frame;
    const member = top.members[top.index];
    if (member) {
      top.index += 1;
      const child = frameOf(member[1], member[0]);
      if (child) stack.push(child);
      else top.parts.push(`${member[0]}${JSON.stringify(member[1]) ?? "null"}`);
      continue;
    }
    stack.pop();
    const rendered = `${top.prefix}${top.open}${top.parts.join(",")}${top.close}`;
    const parent = stack[stack.length - 1];
    if (!parent) return rendered;
    parent.parts.push(rendered);
  }
}

/**
 * FNV-1a 64-bit of a string's UTF-8 bytes. Computed on two 32-bit words, exactly (every
 * intermediate stays below 2^53): a BigInt operation per byte made hashing half of a
 * snapshot reconcile's time.
 */
export function fnv1a64(text: string): bigint {
  let hi = FNV_OFFSET_HI;
  let lo = FNV_OFFSET_LO;
  for (const byte of encoder.encode(text)) {
    lo = (lo ^ byte) >>> 0;
    // (hi·2^32 + lo) · (2^40 + 435) mod 2^64: lo·435 may carry into the high word, and lo·2^40 lands in it shifted by 8.
    const low = lo * FNV_PRIME_LOW;
    const nextLo = low >>> 0;
    hi = (Math.imul(hi, FNV_PRIME_LOW) + (low - nextLo) / TWO_32 + (lo << 8)) >>> 0;
    lo = nextLo;
  }
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** A short lowercase base-36 hash of any value (label- and name-safe), `length` characters. */
export function shortHash(value: unknown, length = 10): string {
  return fnv1a64(stableStringify(value)).toString(36).padStart(13, "0").slice(-length);
}
