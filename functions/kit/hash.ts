/**
 * Deterministic hashing for generated names and spec-hash labels. Pure and synchronous
 * (the same in Node and workerd), so a replayed snapshot yields the same names.
 */

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

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

/**
 * JSON with object keys sorted, so equal values always serialise the same. Iterative
 * (an explicit stack), so no nesting depth a client sends can overflow the call stack.
 */
export function stableStringify(value: unknown): string {
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
