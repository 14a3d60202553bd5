/**
 * Go's `time.ParseDuration`, as OpenYurt reads `autonomy-duration`: a sequence of
 * decimal numbers each with a unit (`ns`, `us`/`µs`/`μs`, `ms`, `s`, `m`, `h`), e.g.
 * `"1h30m"`, `"1.5h"`, `"500ms"`; `"0"` alone needs no unit. A negative duration parses
 * in Go but means nothing here: it is refused.
 */

const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, "μs": 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
/** The longest annotation value read (a Go duration of any sense is far shorter). */
const MAX_LENGTH = 64;

/** What a duration string means: milliseconds, or why it is not one. */
export type ParsedDuration = { readonly ok: true; readonly ms: number } | { readonly ok: false; readonly error: string };

/** What a valid value looks like, for error messages. */
export const DURATION_HINT = 'a Go duration such as "30s", "10m", "1h30m" or "0" (never evict)';

/** Parses a Go duration string (non-negative). */
export function parseGoDuration(text: string): ParsedDuration {
  const value = text.trim();
  if (value.length === 0) return { ok: false, error: `an empty value is not a duration; expected ${DURATION_HINT}` };
  if (value.length > MAX_LENGTH) return { ok: false, error: `a value of ${value.length} characters is not a duration; expected ${DURATION_HINT}` };
  if (value.startsWith("-")) return { ok: false, error: `${JSON.stringify(value)} is negative; expected ${DURATION_HINT}` };
  const body = value.startsWith("+") ? value.slice(1) : value;
  if (body === "0") return { ok: true, ms: 0 };
  let ms = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < body.length) {
    const at = PART.lastIndex;
    const match = PART.exec(body);
    if (match === null || match.index !== at) return { ok: false, error: `${JSON.stringify(value)} is not a duration; expected ${DURATION_HINT}` };
    ms += Number(match[1]) * (UNIT_MS[match[2] ?? ""] ?? Number.NaN);
  }
  if (!Number.isFinite(ms)) return { ok: false, error: `${JSON.stringify(value)} is out of range; expected ${DURATION_HINT}` };
  return { ok: true, ms };
}

/**
 * The `tolerationSeconds` a duration gives: whole seconds, rounded up (upstream truncated
 * `"500ms"` to 0, which evicts at once); `undefined` for 0, which means forever.
 */
export function tolerationSecondsOf(ms: number): number | undefined {
  return ms <= 0 ? undefined : Math.ceil(ms / 1000);
}
