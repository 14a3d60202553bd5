/**
 * `npm run conformance`: one set of request scenarios run against the sim and against a
 * real control plane, their answers normalised and compared; a line per scenario and
 * `conformance: N scenarios, M identical, K differ` at the end. The run lives beside its
 * scenarios in test/conformance/ (main.ts, which also answers --help); this entry starts
 * it with the same Node and flags and exits with its code.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";

const main = join(import.meta.dirname, "..", "test", "conformance", "main.ts");
const child = spawn(process.execPath, [main, ...process.argv.slice(2)], { stdio: "inherit" });
// Ctrl-C reaches the child from the terminal; a SIGTERM sent to this process alone is passed on so that it stops both clusters.
process.on("SIGTERM", () => child.kill("SIGTERM"));
process.on("SIGINT", () => undefined);
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 + 1 : 1)));
