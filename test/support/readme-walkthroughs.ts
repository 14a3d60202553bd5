/**
 * The README's walkthroughs as scripts: each `## … walkthrough` section's `sh` blocks,
 * as a user types them into the second terminal. The lines that start the stack and set
 * KUBECONFIG are the test's to do; a command whose comment says it is `refused` must
 * fail, so it runs under `!`; the state folder `.edgeloop` is the test's own.
 */

/** One walkthrough: its heading and its commands. */
export interface Walkthrough {
  readonly title: string;
  readonly script: string;
}

const HEADING = /^## (.+ walkthrough)$/;
/** Lines the test does itself: it starts the stack and points kubectl at it. */
const OWN_LINES = /^(npm start\b|export KUBECONFIG=)/;
/** A command the README says is refused: it must fail. */
const REFUSED = /^[^#].*#\s*refused\b/;

/** The walkthroughs of a README, in its order. */
export function readmeWalkthroughs(readme: string): Walkthrough[] {
  const walkthroughs: { title: string; lines: string[] }[] = [];
  let current: { title: string; lines: string[] } | undefined;
  let fence: string | undefined;
  for (const line of readme.split("\n")) {
    if (fence === undefined && line.startsWith("## ")) {
      const title = HEADING.exec(line)?.[1];
      current = title === undefined ? undefined : { title, lines: [] };
      if (current) walkthroughs.push(current);
    } else if (line.startsWith("```")) {
      fence = fence === undefined ? line : undefined;
    } else if (fence === "```sh" && current && !OWN_LINES.test(line)) {
      current.lines.push(REFUSED.test(line) ? `! ${line}` : line);
    }
  }
  return walkthroughs.map(({ title, lines }) => ({ title, script: lines.join("\n") }));
}

/** The script with the state folder `.edgeloop` replaced by `state` (npm run gangs is told it too). */
export function inStateFolder(script: string, state: string): string {
  return script
    .replaceAll("./.edgeloop/", `${state}/`)
    .replace(/npm run gangs( --)?/g, `npm run --silent gangs -- --state ${state}`);
}
