/**
 * What the bad-input suite counts per surface, and how it prints: a table, then the one
 * summary line `bad inputs: N tried, 5xx: F, crashes: C, changed: X`. Pure.
 */
import { METHODS } from "node:http";
import type { FuzzRequest } from "./generators.ts";

/** What one request came to. */
export type Outcome =
  | { readonly kind: "status"; readonly status: number }
  /** The connection was reset, refused or timed out, or the server closed it without answering. */
  | { readonly kind: "crash"; readonly reason: string }
  /**
   * The server refused a request without reading its body and closed the connection, as
   * RFC 9110 allows for a body over its limit (§15.5.14) and an HTTP parser does for a
   * method it does not know: the client, still sending, sees a reset. The surface's health
   * is checked after, so a server that died instead is still counted as a crash.
   */
  | { readonly kind: "closed"; readonly reason: string };

/** One surface's counts. */
export interface Tally {
  readonly surface: string;
  tried: number;
  ok: number;
  client: number;
  /** Refused by closing the connection (see `Outcome`). */
  closed: number;
  /** 501 Not Implemented: a method the route does not serve (RFC 9110 §15.6.2), a refusal rather than a failure. */
  notImplemented: number;
  server: number;
  crashes: number;
  changed: number;
  /** A few examples of what went wrong (5xx, crashes, changes), for the report. */
  readonly examples: string[];
}

/** How many examples a tally keeps. */
export const MAX_EXAMPLES = 5;

/** A tally with nothing counted yet. */
export function emptyTally(surface: string): Tally {
  return { surface, tried: 0, ok: 0, client: 0, closed: 0, notImplemented: 0, server: 0, crashes: 0, changed: 0, examples: [] };
}

/** Counts one request's outcome; `describe` (called only for a 5xx or a crash) names the request. */
export function record(tally: Tally, outcome: Outcome, describe: () => string): void {
  tally.tried += 1;
  if (outcome.kind === "closed") {
    tally.closed += 1;
    return;
  }
  if (outcome.kind === "crash") {
    tally.crashes += 1;
    note(tally, `crash (${outcome.reason}): ${describe()}`);
    return;
  }
  const { status } = outcome;
  if (status === 501) tally.notImplemented += 1;
  else if (status >= 500) {
    tally.server += 1;
    note(tally, `${status}: ${describe()}`);
  } else if (status >= 400) tally.client += 1;
  else tally.ok += 1;
}

/** Adds an example to the tally, up to `MAX_EXAMPLES`. */
export function note(tally: Tally, example: string): void {
  if (tally.examples.length < MAX_EXAMPLES) tally.examples.push(example.length > 300 ? `${example.slice(0, 300)}…` : example);
}

/** Methods Node's HTTP parser (llhttp) knows; a server built on it refuses any other before reading the body. */
const PARSED_METHODS: ReadonlySet<string> = new Set(METHODS);

/**
 * Signings the Worker refuses from the headers alone, before it reads the body (an
 * invariant of `functions/http/signature.ts`): no signature, a malformed one, a stale
 * timestamp. workerd then closes the connection on a client still sending a large body.
 */
const REFUSED_BY_HEADERS: ReadonlySet<string> = new Set(["none", "garbage", "stale"]);

/**
 * A reset of a request the server may refuse unread is that refusal: a body over its
 * limit, a method no parser knows, or (`toWorker`) a Worker request whose signature
 * headers are refused before the body is read.
 */
export function refusedUnread(request: Pick<FuzzRequest, "method" | "oversized" | "signing">, outcome: Outcome, toWorker = false): Outcome {
  if (outcome.kind !== "crash" || !["ECONNRESET", "EPIPE"].includes(outcome.reason)) return outcome;
  const unread = request.oversized === true || !PARSED_METHODS.has(request.method) || (toWorker && REFUSED_BY_HEADERS.has(request.signing));
  return unread ? { kind: "closed", reason: outcome.reason } : outcome;
}

/** An AdmissionReview answer's own status code (`response.status.code`), in the start of an answer's text. */
const ADMISSION_CODE = /"kind":"AdmissionReview".*?"response":\{.*?"status":\{"code":(\d{3})/s;

/**
 * An admission answer is HTTP 200 whatever it says; the code inside it is what the API
 * server passes on to whoever wrote the object. A 5xx there is a failure of the webhook
 * (the relay's or the Worker's), counted as a 5xx of the surface.
 */
export function admissionOutcome(outcome: Outcome, text: string): Outcome {
  if (outcome.kind !== "status" || outcome.status !== 200) return outcome;
  const code = Number(ADMISSION_CODE.exec(text)?.[1] ?? 0);
  return code >= 500 && code !== 501 ? { kind: "status", status: code } : outcome;
}

/** The sums over every surface. */
export interface Totals {
  readonly tried: number;
  readonly server: number;
  readonly crashes: number;
  readonly changed: number;
}

/** Sums `tallies`. */
export function totals(tallies: readonly Tally[]): Totals {
  return tallies.reduce<Totals>((sum, t) => ({ tried: sum.tried + t.tried, server: sum.server + t.server, crashes: sum.crashes + t.crashes, changed: sum.changed + t.changed }), { tried: 0, server: 0, crashes: 0, changed: 0 });
}

/** The last line of a run: 5xx counts every 5xx but 501 (a method not served, shown in its own column). */
export function summaryLine(sum: Totals): string {
  return `bad inputs: ${sum.tried} tried, 5xx: ${sum.server}, crashes: ${sum.crashes}, changed: ${sum.changed}`;
}

/** The exit code of a run: 0 only when nothing answered 5xx, crashed or changed. */
export function exitCode(sum: Totals): number {
  return sum.server > 0 || sum.crashes > 0 || sum.changed > 0 ? 1 : 0;
}

const COLUMNS = ["surface", "tried", "2xx/3xx", "4xx", "closed", "501", "5xx", "crashes", "changed"] as const;

/** The per-surface table, right-aligned numbers, with a total row. */
export function formatTable(tallies: readonly Tally[]): string {
  const sum = totals(tallies);
  const okSum = tallies.reduce((n, t) => n + t.ok, 0);
  const clientSum = tallies.reduce((n, t) => n + t.client, 0);
  const closedSum = tallies.reduce((n, t) => n + t.closed, 0);
  const notImplementedSum = tallies.reduce((n, t) => n + t.notImplemented, 0);
  const rows: string[][] = [
    [...COLUMNS],
    ...tallies.map((t) => [t.surface, String(t.tried), String(t.ok), String(t.client), String(t.closed), String(t.notImplemented), String(t.server), String(t.crashes), String(t.changed)]),
    ["total", String(sum.tried), String(okSum), String(clientSum), String(closedSum), String(notImplementedSum), String(sum.server), String(sum.crashes), String(sum.changed)],
  ];
  const widths = COLUMNS.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length)));
  const line = (row: readonly string[]): string => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join("  ");
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  const [header, ...body] = rows;
  const last = body.pop() ?? [];
  return [line(header ?? []), rule, ...body.map(line), rule, line(last)].join("\n");
}
