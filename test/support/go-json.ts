/**
 * JSON as Go's encoding/json writes it, for the messages an upstream (Go) peer sends: a
 * struct's fields in declaration order, a map's keys sorted, a `[]byte` as standard
 * base64 with padding, strings HTML-safe (`<`, `>`, `&`, U+2028 and U+2029 escaped as
 * `\u003c`…) and invalid UTF-16 replaced by U+FFFD, as Go replaces invalid UTF-8.
 */

/** A value Go would encode: a plain object is a `map[string]…` (keys sorted); a {@link GoStruct} keeps its field order; a {@link GoBytes} is a `[]byte`. */
export type GoValue = string | number | boolean | null | readonly GoValue[] | GoStruct | GoBytes | { readonly [key: string]: GoValue };

/** A Go struct: its JSON fields in declaration order (an `omitempty` field left out is simply not listed). */
export class GoStruct {
  readonly fields: ReadonlyArray<readonly [string, GoValue]>;
  constructor(fields: ReadonlyArray<readonly [string, GoValue]>) {
    this.fields = fields;
  }
}

/** A Go `[]byte`: base64 (standard alphabet, padded); `null` for a nil slice. */
export class GoBytes {
  readonly bytes: Uint8Array | null;
  constructor(bytes: Uint8Array | null) {
    this.bytes = bytes;
  }
}

/** Go's `json.Marshal(value)`. */
export function goMarshal(value: GoValue): string {
  if (value === null) return "null";
  if (typeof value === "string") return goString(value);
  if (typeof value === "number") return goNumber(value);
  if (typeof value === "boolean") return String(value);
  if (value instanceof GoBytes) return value.bytes === null ? "null" : `"${Buffer.from(value.bytes).toString("base64")}"`;
  if (value instanceof GoStruct) return `{${value.fields.map(([name, field]) => `${goString(name)}:${goMarshal(field)}`).join(",")}}`;
  if (isArray(value)) return `[${value.map(goMarshal).join(",")}]`;
  // Go sorts a map's keys by their bytes (UTF-8); for these keys that is code-point order.
  const keys = Object.keys(value).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return `{${keys.map((key) => `${goString(key)}:${goMarshal(value[key] ?? null)}`).join(",")}}`;
}

/** What a `json.Encoder` writes for `value` (gorilla's `WriteJSON`): the JSON and a newline. */
export function goEncode(value: GoValue): string {
  return `${goMarshal(value)}\n`;
}

function isArray(value: GoValue): value is readonly GoValue[] {
  return Array.isArray(value);
}

const HTML_UNSAFE = /[<>&\u2028\u2029]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A Go string literal: JSON.stringify's escapes, plus Go's HTML-safe ones. */
function goString(text: string): string {
  return JSON.stringify(text.replace(LONE_SURROGATE, "\uFFFD")).replace(HTML_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A float64 as Go writes it: integers plainly, exponents as ES does (Go trims `e-07` to `e-7`, as ES writes it). */
function goNumber(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`json: unsupported value: ${value}`);
  return Object.is(value, -0) ? "-0" : String(value);
}
