/** The stepped clock's offset file: one integer, milliseconds (may be negative). */

/** The offset a file's text gives; 0 for anything but a whole number within ±10 days. */
export function clockOffset(text: string): number {
  const trimmed = text.trim();
  if (!/^-?\d{1,10}$/.test(trimmed)) return 0;
  const ms = Number(trimmed);
  return Math.abs(ms) <= 10 * 86_400_000 ? ms : 0;
}
