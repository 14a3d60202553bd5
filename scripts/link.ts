/** `npm run link -- [--state DIR] [down | up | SPEC]`: shows or changes the relay–Worker link of a running npm start. */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { z } from "zod";
import { cli, fail } from "../cli/args.ts";
import { ROOT } from "./lib/controllers.ts";
import { linkControl, linkSocketPath } from "./lib/link/control.ts";
import { formatLinkShape, LinkSpecError, parseLinkCommand } from "./lib/link/spec.ts";
import type { LinkState } from "./lib/link/shaper.ts";

const HELP = `usage: npm run link -- [--state DIR] [down | up | 5xx | reset | SPEC]

Shows or changes the link between the relay and the Worker of the npm start running on
the state folder, while it runs (npm start -- --link SPEC sets it at start):

  SPEC   rtt=50ms,jitter=5ms,loss=0.5%,bandwidth=20mbit   any subset; none: no shaping
         rtt        round-trip time (ms or s); half of it each way, plus two round trips
                    before a new connection's first byte (TCP's and TLS's handshakes)
         jitter     each chunk's delay varies by up to ± this (at most half the rtt)
         loss       share of 1,460-byte segments lost; each holds its connection for a
                    retransmission timeout, max(200 ms, rtt + 4 × jitter)
         bandwidth  each direction's rate, every connection sharing it (kbit, mbit, gbit)
  down   the Worker becomes an unreachable host: connections are neither answered nor
         refused, what is in flight waits; each caller's timeout ends it
  up     the link returns; what waited goes on; a fault ends
  5xx    every request is answered 503 by the link, not the Worker (as Cloudflare's
         edge answers for a Worker over its limits or down)
  reset  every answer is cut by a reset halfway through its first chunk

Without a command it prints the link's state. The shape of the link is kept until
changed or until npm start stops (then it starts unshaped unless --link is given).

  --state DIR   the state folder of the running npm start (default .edgeloop)`;

const Flags = z.object({ state: z.string().min(1).default(".edgeloop") });
const spec = { name: "link", help: HELP, options: { state: { type: "string" as const } }, schema: Flags };
const args = process.argv.slice(2);
const positional = args.filter((arg, i) => !arg.startsWith("-") && args[i - 1] !== "--state");
if (positional.length > 1) fail(spec, `one command at a time (got ${positional.join(" ")})`);
const flags = cli(spec, args.filter((arg) => !positional.includes(arg)));
const command = positional[0];
if (command !== undefined) {
  try {
    parseLinkCommand(command);
  } catch (error) {
    if (error instanceof LinkSpecError) fail(spec, `link spec: ${error.message}`);
    throw error;
  }
}
const socket = linkSocketPath(resolve(ROOT, flags.state));
if (!existsSync(socket)) {
  console.error(`link: no npm start is running on ${flags.state} (no ${socket})`);
  process.exit(1);
}
const answer = await linkControl(socket, command).catch((error: unknown) => {
  console.error(`link: the npm start on ${flags.state} did not answer: ${(error as Error).message}`);
  process.exit(1);
});
if (!answer.ok) {
  console.error(`link: ${answer.message}`);
  process.exit(2);
}
console.log(describe(answer.state));

/** One line a person reads; JSON when piped, for scripts. */
function describe(state: LinkState): string {
  if (!process.stdout.isTTY) return JSON.stringify({ up: state.up, ...(state.fault ? { fault: state.fault } : {}), spec: formatLinkShape(state.shape), ...state.counters });
  const c = state.counters;
  return `link ${state.up ? "up" : "DOWN"}${state.fault ? ` (fault: ${state.fault})` : ""}: ${formatLinkShape(state.shape)}   (${c.open} open of ${c.connections} connections; ${c.bytesToWorker} bytes to the Worker, ${c.bytesFromWorker} from it; ${c.retransmissions} retransmissions)`;
}
