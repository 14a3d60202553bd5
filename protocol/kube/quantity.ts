/**
 * Kubernetes resource quantities (`500m`, `1Gi`, `1.5`, `2e3`) as the API server parses
 * them (apimachinery's `resource.ParseQuantity`): exactly, never through a float. A parsed
 * quantity is a whole number of nano-units, as upstream keeps it: a finer value is rounded
 * away from zero to the next nano-unit (`0.9n` is `1n`), and a binary-suffixed one is
 * capped at 2^63-1 units (`8Ei`). Pure.
 */

/** An exact quantity, in nano-units (10^-9 of the unit: of a core for cpu, of a byte for memory). */
export interface Quantity {
  readonly nanos: bigint;
}

/** The decimal SI suffixes (`k` is 10^3, `m` 10^-3) and the binary ones (`Ki` is 2^10), as exponents. */
const DECIMAL: Readonly<Record<string, number>> = { "": 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
/** The characters a suffix may start with (upstream's scanner). */
const SUFFIX_CHARS = "eEinumkKMGTP";
/** Binary-suffixed quantities are capped here (`math.MaxInt64` units). */
const MAX_BINARY_NANOS = (2n ** 63n - 1n) * 10n ** 9n;
/**
 * Beyond 10^120 nano-units (10^111 units, far past anything int64 holds) a quantity is
 * held at that bound, so that `1e999999999` cannot make a billion-digit number; such
 * absurd quantities then compare equal, the one place this differs from upstream.
 */
const SATURATION_DIGITS = 120;

/** The parts upstream's `parseQuantityString` scans: sign, whole and fraction digits, suffix. */
interface Scanned {
  readonly negative: boolean;
  readonly whole: string;
  readonly fraction: string;
  readonly suffix: string;
}

/** Digits from `start`: the index after the last one. */
function digitsFrom(text: string, start: number): number {
  let i = start;
  while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i += 1;
  return i;
}

/** Upstream's scanner: `[+-]digits[.digits]suffix`, where a suffix is letters of SUFFIX_CHARS, an optional sign, then digits. */
function scan(text: string): Scanned | undefined {
  let pos = 0;
  const negative = text[0] === "-";
  if (text[0] === "-" || text[0] === "+") pos += 1;
  const wholeEnd = digitsFrom(text, pos);
  const whole = text.slice(pos, wholeEnd);
  pos = wholeEnd;
  let fraction = "";
  if (text[pos] === ".") {
    const fractionEnd = digitsFrom(text, pos + 1);
    fraction = text.slice(pos + 1, fractionEnd);
    pos = fractionEnd;
  }
  const suffixStart = pos;
  while (pos < text.length && SUFFIX_CHARS.includes(text[pos] ?? "")) pos += 1;
  if (text[pos] === "-" || text[pos] === "+") pos += 1;
  if (digitsFrom(text, pos) !== text.length) return undefined;
  return { negative, whole, fraction, suffix: text.slice(suffixStart) };
}

/** A suffix as a power of 10 and a power of 2, as upstream's suffixer interprets it; undefined when it is none. */
function interpret(suffix: string): { readonly exp10: number; readonly exp2: number } | undefined {
  const decimal = DECIMAL[suffix];
  if (decimal !== undefined) return { exp10: decimal, exp2: 0 };
  const binary = BINARY[suffix];
  if (binary !== undefined) return { exp10: 0, exp2: binary };
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E") && /^[+-]?\d+$/.test(suffix.slice(1))) return { exp10: Number(suffix.slice(1)), exp2: 0 };
  return undefined;
}

/** `|digits × 2^exp2 × 10^exp10|` in nano-units, rounded up, saturated. */
function nanosOf(digits: bigint, exp2: number, exp10: number): bigint {
  if (digits === 0n) return 0n;
  const mantissa = digits * 2n ** BigInt(exp2);
  const length = mantissa.toString().length;
  const shift = exp10 + 9;
  if (shift >= 0) return length + shift > SATURATION_DIGITS ? 10n ** BigInt(SATURATION_DIGITS) : mantissa * 10n ** BigInt(shift);
  // A value below one nano-unit rounds up to one: there is no need to build 10^-shift.
  if (-shift > length) return 1n;
  const divisor = 10n ** BigInt(-shift);
  return (mantissa + divisor - 1n) / divisor;
}

/**
 * Parses a quantity: a string (surrounding white space ignored, as in JSON) or a finite
 * number (JSON's other spelling); undefined when it is no quantity. Upstream's grammar,
 * quirks included: `1.` and `.5` parse, `1e3` is 1000 but `1E` is one exa, `1e` and `1Gb`
 * do not parse, and a lone sign or `.` is zero.
 */
export function parseQuantity(value: unknown): Quantity | undefined {
  const text = typeof value === "number" && Number.isFinite(value) ? String(value) : typeof value === "string" ? value.trim() : undefined;
  if (text === undefined || text === "") return undefined;
  const scanned = scan(text);
  const exponents = scanned && interpret(scanned.suffix);
  if (!scanned || !exponents) return undefined;
  const digits = BigInt(`${scanned.whole}${scanned.fraction}` || "0");
  let nanos = nanosOf(digits, exponents.exp2, exponents.exp10 - scanned.fraction.length);
  if (exponents.exp2 > 0 && nanos > MAX_BINARY_NANOS) nanos = MAX_BINARY_NANOS;
  return { nanos: scanned.negative ? -nanos : nanos };
}

/** Whether `value` parses as a quantity. */
export function isQuantity(value: unknown): boolean {
  return parseQuantity(value) !== undefined;
}

/** -1, 0 or 1 as `a` is less than, equal to or more than `b` (`Quantity.Cmp`). */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}

/** `nanos / divisor` rounded up in magnitude, held within ±`Number.MAX_SAFE_INTEGER`. */
function scaled(nanos: bigint, divisor: bigint): number {
  const magnitude = nanos < 0n ? -nanos : nanos;
  const rounded = (magnitude + divisor - 1n) / divisor;
  const clamped = rounded > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(rounded);
  return nanos < 0n ? -clamped : clamped;
}

/** The quantity in whole units, rounded up (`Quantity.Value`: `0.5` is 1, `1Gi` is 1073741824). */
export function quantityValue(quantity: Quantity): number {
  return scaled(quantity.nanos, 10n ** 9n);
}

/** The quantity in thousandths, rounded up (`Quantity.MilliValue`: `0.1` cpu is 100, `100n` is 1). */
export function quantityMilliValue(quantity: Quantity): number {
  return scaled(quantity.nanos, 10n ** 6n);
}
