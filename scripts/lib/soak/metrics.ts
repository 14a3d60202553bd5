/** Reading a counter from Prometheus text (the relay's /metrics). */

/** The sum of every sample of metric `name` in Prometheus text `text` (all label sets). */
export function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)(\s+\d+)?$/.exec(line);
    if (match?.[1] === name) sum += Number(match[3]);
  }
  return sum;
}
