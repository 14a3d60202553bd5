/**
 * Go's `time.ParseDuration` (Go 1.26, `src/time/format.go`), as OpenYurt reads
 * `autonomy-duration`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` with the units `ns`,
 * `us`/`µs`/`μs`, `ms`, `s`, `m`, `h`; `"0"` alone (after a sign) needs no unit. Ported
 * step by step, in unsigned 64-bit arithmetic (bigint) and Go's float64 fraction step, so
 * that what Go refuses — a number past 2^63, a total past 2562047h47m16.854775807s — is
 * refused here too, and what it accepts has the same nanoseconds (checked against Go's own
 * answers: `go-duration/`). A negative duration parses in Go but means nothing here: it is
 * refused.
 */

const UNIT_NS: Readonly<Record<string, bigint>> = { ns: 1n, us: 1_000n, "µs": 1_000n, "μs": 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };
const TWO_63 = 1n << 63n;
const MAX_INT64 = TWO_63 - 1n;
const NS_PER_SECOND = 1_000_000_000n;
/** The longest part of a value quoted back in a message. */
const QUOTED_LENGTH = 80;

/** The largest `tolerationSeconds` the API accepts (an int64). Go's largest duration, rounded up to seconds, is far below it. */
export const MAX_TOLERATION_SECONDS = MAX_INT64;

/** What a valid value looks like, for error messages. */
export const DURATION_HINT = 'a Go duration such as "30s", "10m", "1h30m" or "0" (never evict)';

/**
 * What a duration string means: nanoseconds (never negative), or why it is not one —
 * `goError` is Go's own error text when Go refuses it too.
 */
export type ParsedDuration = { readonly ok: true; readonly nanoseconds: bigint } | { readonly ok: false; readonly error: string; readonly goError?: string };

/** Go's refusal: its error message, and whether it is an overflow. */
type GoFailure = { readonly ok: false; readonly message: string; readonly overflow: boolean };
/** Go's answer: nanoseconds (signed), or its refusal. */
type GoAnswer = { readonly ok: true; readonly nanoseconds: bigint } | GoFailure;

/** Parses a Go duration string; a negative one is refused. */
export function parseGoDuration(text: string): ParsedDuration {
  const answer = goParseDuration(text);
  const shown = JSON.stringify(cut(text));
  if (!answer.ok) {
    const goError = `time: ${answer.message} ${goQuote(text)}`;
    if (answer.overflow) return { ok: false, goError, error: `${shown} is out of range: Go's durations end at 2562047h47m16.854775807s (about 292 years); expected ${DURATION_HINT}` };
    const why = answer.message === "invalid duration" ? "" : ` (${cut(answer.message.replace(/ in duration$/, ""))})`;
    return { ok: false, goError, error: `${shown} is not a duration${why}; expected ${DURATION_HINT}` };
  }
  if (answer.nanoseconds < 0n) return { ok: false, error: `${shown} is negative; expected ${DURATION_HINT}` };
  return { ok: true, nanoseconds: answer.nanoseconds };
}

/** A value or reason as quoted back: at most QUOTED_LENGTH characters. */
function cut(text: string): string {
  return text.length > QUOTED_LENGTH ? `${text.slice(0, QUOTED_LENGTH)}…` : text;
}

/**
 * The `tolerationSeconds` a duration gives: whole seconds, rounded up (upstream truncated
 * `"500ms"` to 0, which evicts at once); `undefined` for 0, which means forever. At most
 * 9223372037 for Go's largest duration: within int64, and exact as a JSON number.
 */
export function tolerationSecondsOf(nanoseconds: bigint): number | undefined {
  if (nanoseconds <= 0n) return undefined;
  const seconds = (nanoseconds + NS_PER_SECOND - 1n) / NS_PER_SECOND;
  return Number(seconds <= MAX_TOLERATION_SECONDS ? seconds : MAX_TOLERATION_SECONDS);
}

const invalid: GoFailure = { ok: false, message: "invalid duration", overflow: false };
const overflow: GoFailure = { ok: false, message: "invalid duration", overflow: true };

/** `time.ParseDuration`, line by line. */
function goParseDuration(orig: string): GoAnswer {
  let s = orig;
  let neg = false;
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return { ok: true, nanoseconds: 0n };
  if (s === "") return invalid;
  let d = 0n;
  while (s !== "") {
    const part = parsePart(s);
    if (!part.ok) return part;
    s = part.rest;
    d += part.value;
    if (d > TWO_63) return overflow;
  }
  if (neg) return { ok: true, nanoseconds: -d };
  if (d > MAX_INT64) return overflow;
  return { ok: true, nanoseconds: d };
}

type Part = { readonly ok: true; readonly value: bigint; readonly rest: string } | GoFailure;

/** One `[0-9]*(\.[0-9]*)?unit` at the start of `s`: its nanoseconds (unsigned) and what follows. */
function parsePart(s: string): Part {
  if (!(s[0] === "." || isDigit(s[0]))) return invalid;
  const whole = leadingInt(s);
  if (whole === undefined) return overflow;
  let rest = whole.rest;
  const pre = whole.rest.length !== s.length;
  let fraction: Fraction = { x: 0n, scale: 1, rest };
  if (rest[0] === ".") {
    fraction = leadingFraction(rest.slice(1));
    rest = fraction.rest;
  }
  const post = rest.length !== whole.rest.length - 1 && whole.rest[0] === ".";
  if (!pre && !post) return invalid;
  let i = 0;
  while (i < rest.length && rest[i] !== "." && !isDigit(rest[i])) i++;
  if (i === 0) return { ok: false, message: "missing unit in duration", overflow: false };
  const name = rest.slice(0, i);
  const unit = UNIT_NS[name];
  if (unit === undefined) return { ok: false, message: `unknown unit ${goQuote(name)} in duration`, overflow: false };
  if (whole.x > TWO_63 / unit) return overflow;
  let value = whole.x * unit;
  if (fraction.x > 0n) {
    // Go's own float64 step (nanosecond accurate for fractions of an hour), truncated as uint64() truncates.
    value += BigInt(Math.trunc(Number(fraction.x) * (Number(unit) / fraction.scale)));
    if (value > TWO_63) return overflow;
  }
  return { ok: true, value, rest: rest.slice(i) };
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/** Go's `leadingInt`: the leading digits as a uint64, `undefined` past 2^63. */
function leadingInt(s: string): { readonly x: bigint; readonly rest: string } | undefined {
  let x = 0n;
  let i = 0;
  for (; i < s.length && isDigit(s[i]); i++) {
    if (x > TWO_63 / 10n) return undefined;
    x = x * 10n + BigInt(s.charCodeAt(i) - 48);
    if (x > TWO_63) return undefined;
  }
  return { x, rest: s.slice(i) };
}

type Fraction = { readonly x: bigint; readonly scale: number; readonly rest: string };

/** Go's `leadingFraction`: the digits after the point, precision dropped (not refused) once past int64. */
function leadingFraction(s: string): Fraction {
  let x = 0n;
  let scale = 1;
  let overflowed = false;
  let i = 0;
  for (; i < s.length && isDigit(s[i]); i++) {
    if (overflowed) continue;
    if (x > MAX_INT64 / 10n) {
      overflowed = true;
      continue;
    }
    const y = x * 10n + BigInt(s.charCodeAt(i) - 48);
    if (y > TWO_63) {
      overflowed = true;
      continue;
    }
    x = y;
    scale *= 10;
  }
  return { x, scale, rest: s.slice(i) };
}

/** Go's `time.quote`: printable ASCII kept (`"` and `\` escaped), every other byte of the UTF-8 as `\xNN`. */
function goQuote(s: string): string {
  let out = '"';
  for (const c of s) {
    const code = c.codePointAt(0) ?? 0;
    if (code >= 0x80 || code < 0x20) {
      for (const byte of new TextEncoder().encode(c)) out += `\\x${byte.toString(16).padStart(2, "0")}`;
    } else {
      out += c === '"' || c === "\\" ? `\\${c}` : c;
    }
  }
  return `${out}"`;
}
