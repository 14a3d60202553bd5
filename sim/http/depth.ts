/**
 * How deep a request body may nest. Upstream's JSON decoder refuses more than 10,000
 * levels ("exceeded max depth"); the sim's patch and decoding walks recurse, and overflow
 * the stack (a 500) a few thousand levels down, so the sim refuses earlier. Real objects
 * nest a few dozen levels.
 */
export const MAX_BODY_DEPTH = 1000;

/** Whether `value` nests arrays and objects deeper than `max` (iterative: the check itself cannot overflow). */
export function nestedDeeperThan(value: unknown, max: number = MAX_BODY_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [node, depth] = item;
    if (typeof node !== "object" || node === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(node)) if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
