/**
 * Waiting on a condition with a deadline: the one polling loop of the tests, the tools and
 * the control plane's launcher. A wait reads a value until it is the one awaited; when the
 * deadline passes first, the error names what was awaited and the last value read, so a
 * failure says where things stood rather than only that time ran out.
 */

/** How long to wait, how often to read, how to show the last value read. */
export interface WaitOptions<T> {
  /** Give up after this long (default 10 s). */
  readonly timeoutMs?: number;
  /** Read every `intervalMs`; by default the pause starts at 10 ms and doubles up to 250 ms. */
  readonly intervalMs?: number;
  /** The last value as the timeout message shows it (default: JSON, cut to 500 characters). */
  readonly describe?: (last: T) => string | Promise<string>;
}

/** A wait whose deadline passed before its condition held. */
export class WaitTimeout extends Error {
  override readonly name = "WaitTimeout";
}

const FIRST_PAUSE_MS = 10;
const LONGEST_PAUSE_MS = 250;
const DESCRIBED_CHARS = 500;

/**
 * Reads `read()` until `done` holds for its value, and returns that value; rejects with a
 * {@link WaitTimeout} after `timeoutMs` (a read still pending then is not waited for), and
 * with a read's own error at once.
 */
export async function waitFor<T, U extends T>(what: string, read: () => T | Promise<T>, done: (value: NoInfer<T>) => value is U, options?: WaitOptions<NoInfer<T>>): Promise<U>;
export async function waitFor<T>(what: string, read: () => T | Promise<T>, done: (value: NoInfer<T>) => boolean, options?: WaitOptions<NoInfer<T>>): Promise<T>;
export async function waitFor<T>(what: string, read: () => T | Promise<T>, done: (value: T) => boolean, options: WaitOptions<T> = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = performance.now() + timeoutMs;
  let seen: { value: T } | undefined;
  for (let pause = options.intervalMs ?? FIRST_PAUSE_MS; ; pause = options.intervalMs ?? Math.min(pause * 2, LONGEST_PAUSE_MS)) {
    const value = await beforeDeadline(read(), deadline);
    if (value === TIMED_OUT) break;
    if (done(value.value)) return value.value;
    seen = value;
    const left = deadline - performance.now();
    if (left <= 0) break;
    await pauseFor(Math.min(pause, left));
  }
  const last = seen === undefined ? "nothing (no read finished)" : await (options.describe ?? shown)(seen.value);
  throw new WaitTimeout(`timed out after ${timeoutMs / 1000} s waiting for ${what}; last seen: ${last}`);
}

/** A type guard for {@link waitFor}'s `done`: the value is there (not undefined). */
export function present<T>(value: T | undefined): value is T {
  return value !== undefined;
}

const TIMED_OUT = Symbol("timed out");

/** `value`'s outcome, or TIMED_OUT if `deadline` comes first (a late rejection is then dropped). */
async function beforeDeadline<T>(value: T | Promise<T>, deadline: number): Promise<{ value: T } | typeof TIMED_OUT> {
  if (!(value instanceof Promise)) return { value };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, deadline - performance.now()))));
  try {
    return await Promise.race([value.then((resolved) => ({ value: resolved })), late]);
  } finally {
    clearTimeout(timer);
    value.catch(() => undefined);
  }
}

function pauseFor(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A value as a timeout message shows it by default: an Error by its message, anything else as JSON, cut short. */
function shown(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > DESCRIBED_CHARS ? `${text.slice(0, DESCRIBED_CHARS)}… (${text.length} characters)` : text;
}
