/** The chaos suite's table: one row per fault, and the summary line the suite ends with. */

/** What one fault row found. */
export interface ChaosRow {
  readonly fault: string;
  /** Seconds from the row's start (its burst) to the fault's injection. */
  readonly injectedAtS: number;
  readonly expected: string;
  readonly happened: string;
  readonly lost: number;
  readonly duplicated: number;
  /** Seconds from the injection until every expected child existed exactly once; `undefined`: not within the deadline. */
  readonly convergeS: number | undefined;
  /** What the ledger counted continuously during the row (its lost and duplicated are in the two columns too). */
  readonly seen: { readonly created: number; readonly replies: number; readonly lost: number; readonly duplicated: number };
  /** Converged, nothing lost nor duplicated, and the fault's own check (e.g. Retry-After honoured) held. */
  readonly survived: boolean;
}

const HEADERS = ["fault", "injected at", "expected", "happened", "lost", "duplicated", "converged in"] as const;

function cells(row: ChaosRow): string[] {
  return [
    `${row.survived ? "ok  " : "FAIL"} ${row.fault}`,
    `${row.injectedAtS.toFixed(1)} s`,
    row.expected,
    row.happened,
    String(row.lost),
    String(row.duplicated),
    row.convergeS === undefined ? "never" : `${row.convergeS.toFixed(1)} s`,
  ];
}

/** The rows as a plain-text table (columns padded to their widest cell). */
export function formatTable(rows: readonly ChaosRow[]): string {
  const lines = [[...HEADERS], ...rows.map(cells)];
  const widths = HEADERS.map((_, i) => Math.max(...lines.map((line) => (line[i] ?? "").length)));
  return lines.map((line) => line.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd()).join("\n");
}

/** The suite's last line: `faults: N injected, N survived, lost: L, duplicated: D`. */
export function summaryLine(rows: readonly ChaosRow[]): string {
  const survived = rows.filter((row) => row.survived).length;
  const lost = rows.reduce((sum, row) => sum + row.lost, 0);
  const duplicated = rows.reduce((sum, row) => sum + row.duplicated, 0);
  return `faults: ${rows.length} injected, ${survived} survived, lost: ${lost}, duplicated: ${duplicated}`;
}

/**
 * The continuous count's line, before the summary: `counted continuously: N objects
 * created, N API replies checked, lost: L, duplicated: D` (over the rows).
 */
export function ledgerLine(rows: readonly ChaosRow[], totals: { readonly created: number; readonly replies: number }): string {
  const lost = rows.reduce((sum, row) => sum + row.seen.lost, 0);
  const duplicated = rows.reduce((sum, row) => sum + row.seen.duplicated, 0);
  return `counted continuously: ${totals.created} objects created, ${totals.replies} API replies checked, lost: ${lost}, duplicated: ${duplicated}`;
}

/** Whether the suite passed: every fault survived (and there was at least one). */
export function allSurvived(rows: readonly ChaosRow[]): boolean {
  return rows.length > 0 && rows.every((row) => row.survived);
}
