/**
 * The nesting bound of JSON bodies, shared by the Worker (`functions/http/body.ts`) and
 * the relay's fronts (admission reviews, API bodies): checked on the bytes before anything
 * recursive touches the value, so a body nested 100,000 deep is a 400 naming the field,
 * not a stack overflow.
 */

/**
 * Deepest nesting of arrays and objects any body may have. Real snapshots stay far below
 * (a pod template inside a snapshot is about 15 deep); the bound is what lets every walk
 * of user data in the Worker (merge patches, structural validation, reconcilers) recurse
 * safely, instead of a deep array overflowing the stack into a 500.
 */
export const MAX_JSON_DEPTH = 64;

/** A container met by the depth walk, linked to its parent so the path is built only once refused. */
interface Nested {
  readonly value: object;
  readonly depth: number;
  readonly key: string;
  readonly parent: Nested | undefined;
}

function pathOf(node: Nested): string {
  const keys: string[] = [];
  for (let at: Nested | undefined = node; at?.parent; at = at.parent) keys.push(at.key);
  return keys.reverse().join(".");
}

/** The dot path of an array or object nested deeper than `MAX_JSON_DEPTH`, if any (iterative: the walk itself cannot overflow). */
export function tooDeep(data: unknown): string | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const stack: Nested[] = [{ value: data, depth: 1, key: "", parent: undefined }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.depth > MAX_JSON_DEPTH) return pathOf(node);
    for (const [key, child] of Object.entries(node.value)) {
      if (typeof child === "object" && child !== null) stack.push({ value: child as object, depth: node.depth + 1, key, parent: node });
    }
  }
  return undefined;
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether the JSON text in `bytes` nests arrays and objects deeper than `max`: one pass
 * over the bytes, strings skipped (no byte of a multi-byte UTF-8 character is ASCII).
 * A walk of the parsed value allocated a frame per container: a tenth of the Worker's
 * time per reconcile.
 */
export function nestsDeeperThan(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth += 1;
      if (depth > max) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth -= 1;
  }
  return false;
}

/** Where a JSON text nests deeper than {@link MAX_JSON_DEPTH}: the dot path of the first container too deep (`""` for the top), or `undefined` when it does not (or is not JSON: the caller's parse says so). */
export function jsonTooDeep(text: string): string | undefined {
  const bytes = new TextEncoder().encode(text);
  if (!nestsDeeperThan(bytes, MAX_JSON_DEPTH)) return undefined;
  try {
    // JSON.parse itself is not recursive in V8; the walk that names the path is iterative.
    return tooDeep(JSON.parse(text)) ?? "";
  } catch {
    return "";
  }
}
