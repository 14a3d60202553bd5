/**
 * The table `npm run gangs` prints of the gang scheduler's queue (`GET /v1/gangs`): one
 * row per group, column-aligned like kubectl's, times shown relative to the scheduler's
 * clock (the list's `now`), so that a skewed local clock does not matter.
 */
import type { GangList, GangRow } from "../../functions/controllers/gang/api/schema.ts";

/** The columns, in order; the last one (WAITING-FOR) is never padded nor truncated. */
export const GANG_COLUMNS = ["NAMESPACE", "GROUP", "STATE", "PODS", "POSITION", "ETA", "NODES", "DEADLINE", "WAITING-FOR"] as const;

/** The widest the node names of the NODES column get (after the count) before `,…`. */
export const NODE_NAMES_WIDTH = 40;

/** What an empty cell shows. */
const NONE = "-";

/**
 * A whole number of seconds as kubectl prints ages: `42s`, `3m10s`, `3m`, `1h5m`, `2d3h`
 * (two units at most, a zero second unit dropped).
 */
export function shortDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  const pair = (big: number, bigUnit: string, small: number, smallUnit: string): string => `${big}${bigUnit}${small > 0 ? `${small}${smallUnit}` : ""}`;
  if (s < 3600) return pair(Math.floor(s / 60), "m", s % 60, "s");
  if (s < 86_400) return pair(Math.floor(s / 3600), "h", Math.floor((s % 3600) / 60), "m");
  return pair(Math.floor(s / 86_400), "d", Math.floor((s % 86_400) / 3600), "h");
}

/**
 * When `at` is, seen from `now` (both RFC 3339): `in 42s`, `now`, or `42s ago`. A part of
 * a second counts as a whole one, so that a time still ahead never reads `in 0s`. A time
 * that does not parse is returned as it is.
 */
export function relativeTime(at: string, now: string): string {
  const ms = Date.parse(at) - Date.parse(now);
  if (Number.isNaN(ms)) return at;
  if (ms === 0) return "now";
  const seconds = Math.ceil(Math.abs(ms) / 1000);
  return ms > 0 ? `in ${shortDuration(seconds)}` : `${shortDuration(seconds)} ago`;
}

/** The DEADLINE cell: `in 55s`, `passed` once reached, `-` without a deadline. */
export function deadlineCell(deadline: string | null, now: string): string {
  if (deadline === null) return NONE;
  const ms = Date.parse(deadline) - Date.parse(now);
  return !Number.isNaN(ms) && ms <= 0 ? "passed" : relativeTime(deadline, now);
}

/**
 * The NODES cell: the count, then as many names as fit in `width` characters, `,…` when
 * some are left out (`3 (node-1,node-2,…)`); the first name is always shown, cut with `…`
 * if it alone is too long. `-` without nodes.
 */
export function nodesCell(nodes: readonly string[], width: number = NODE_NAMES_WIDTH): string {
  const [first, ...rest] = nodes;
  if (first === undefined) return NONE;
  const more = ",…";
  let names = first.length > width ? `${first.slice(0, Math.max(1, width - 1))}…` : first;
  let shown = 1;
  for (const name of rest) {
    // Room is kept for `,…` unless this is the last name.
    const last = shown === nodes.length - 1;
    if (names.length + 1 + name.length + (last ? 0 : more.length) > width) break;
    names += `,${name}`;
    shown += 1;
  }
  return `${nodes.length} (${names}${shown < nodes.length ? more : ""})`;
}

/** One group's cells, in the order of {@link GANG_COLUMNS}. */
export function gangCells(row: GangRow, now: string): string[] {
  return [
    row.namespace,
    row.group,
    row.state,
    `${row.present}/${row.size}`,
    row.position === null ? NONE : String(row.position),
    row.reservedStart === null ? NONE : relativeTime(row.reservedStart, now),
    nodesCell(row.nodes),
    deadlineCell(row.deadline, now),
    // One line per row, whatever the scheduler wrote.
    row.waitingFor === null || row.waitingFor.trim() === "" ? NONE : row.waitingFor.replace(/\s+/g, " ").trim(),
  ];
}

/**
 * The table of `list`: an uppercase header then one line per group, columns padded to
 * their widest cell and two spaces apart, the last one left as it is (kubectl's layout).
 * Ends with a newline. An empty list gives the header alone: the command prints
 * `No gangs found.` instead.
 */
export function formatGangTable(list: GangList): string {
  const rows: string[][] = [[...GANG_COLUMNS], ...list.items.map((row) => gangCells(row, list.now))];
  const widths = GANG_COLUMNS.map((_, i) => Math.max(...rows.map((cells) => (cells[i] ?? "").length)));
  const line = (cells: string[]): string => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ").trimEnd();
  return `${rows.map(line).join("\n")}\n`;
}
