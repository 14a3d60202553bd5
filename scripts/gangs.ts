/**
 * `npm run gangs`: the gang scheduler's queue, as the relay's API serves it
 * (`GET /v1/gangs`), printed as a kubectl-like table or as JSON.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { cli } from "../cli/args.ts";
import { ErrorBody } from "../protocol/errors.ts";
import { GangList, GANGS_PATH } from "../functions/controllers/gang/api/schema.ts";
import { ROOT } from "./lib/controllers.ts";
import { formatGangTable } from "./lib/gangs-table.ts";

const HELP = `usage: npm run --silent gangs -- [options]

Shows the gang scheduler's queue: one row per group (gang) with its state, its pods
present out of its size, its queue position, when a reserved group is expected to start
(ETA), its nodes, its deadline and what it waits for. Times are relative to the
scheduler's clock. Reads the API address from the state folder of npm start. Shows the
groups of the namespaces where the token's user may list pods (the relay asks the API
server: TokenReview, then SubjectAccessReview).

  -o, --output F      table | json (default table); json prints the rows as a JSON array:
                        npm run --silent gangs -- -o json | jq .
  -n, --namespace NS  only the groups of this namespace
  --state DIR         the state folder of npm start, where endpoints.json is
                      (default .edgeloop)
  --url URL           the relay's API base URL instead of endpoints.json, for a relay on
                      a real cluster:
                        kubectl port-forward svc/edgeloop-relay 8080
                        npm run gangs -- --url http://127.0.0.1:8080
  --token TOKEN       the bearer token sent (default: EDGELOOP_TOKEN, else the token of the
                      kubeconfig npm start wrote); on a real cluster, a ServiceAccount's:
                        npm run gangs -- --url http://127.0.0.1:8080 --token "$(kubectl create token my-sa)"
  -w, --watch         print the queue again every 2 seconds until interrupted (Ctrl-C)
  -h, --help          show this help`;

const WATCH_SECONDS = 2;
const TIMEOUT_MS = 10_000;

const Flags = z.object({
  output: z.enum(["table", "json"]).default("table"),
  namespace: z.string().min(1, "--namespace needs a namespace").optional(),
  state: z.string().min(1, "--state needs a directory").default(".edgeloop"),
  url: z
    .string()
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), "--url needs an http:// or https:// URL, e.g. http://127.0.0.1:8080")
    .optional(),
  token: z.string().min(1, "--token needs a token").optional(),
  watch: z.boolean().default(false),
});
const flags = cli({
  name: "gangs",
  help: HELP,
  options: {
    output: { type: "string", short: "o" },
    namespace: { type: "string", short: "n" },
    state: { type: "string" },
    url: { type: "string" },
    token: { type: "string" },
    watch: { type: "boolean", short: "w" },
  },
  schema: Flags,
});

/** A failure a person can act on: one line on stderr, exit 1, no stack trace. */
function exitWith(message: string): never {
  console.error(`gangs: ${message}`);
  process.exit(1);
}

/** Where the relay's API is, and the kubeconfig npm start wrote (none with --url). */
interface Target {
  readonly base: string;
  readonly kubeconfig: string | undefined;
}

/** The API base URL: --url, or the `gangs` API that npm start wrote into endpoints.json (with its kubeconfig). */
function target(): Target {
  if (flags.url !== undefined) return { base: flags.url, kubeconfig: undefined };
  const file = join(resolve(ROOT, flags.state), "endpoints.json");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") exitWith(`no ${file}: is the stack running? start it with npm start (or pass --url URL for a relay on a cluster)`);
    exitWith(`cannot read ${file}: ${(error as Error).message}`);
  }
  let endpoints: unknown;
  try {
    endpoints = JSON.parse(text);
  } catch {
    exitWith(`${file} is not JSON: restart npm start to rewrite it`);
  }
  const parsed = z.object({ apis: z.object({ gangs: z.string().min(1) }), kubeconfig: z.string().min(1).optional() }).safeParse(endpoints);
  if (!parsed.success) exitWith(`${file} names no gangs API: the running npm start has no gang scheduler (restart it), or pass --url URL`);
  return { base: parsed.data.apis.gangs, kubeconfig: parsed.data.kubeconfig };
}

/** The bearer token: --token, EDGELOOP_TOKEN, else the token of the kubeconfig's current user (npm start's), if it has one. */
async function token(kubeconfig: string | undefined): Promise<string | undefined> {
  const given = flags.token ?? process.env["EDGELOOP_TOKEN"];
  if (given !== undefined && given !== "") return given;
  if (kubeconfig === undefined) return undefined;
  const { KubeConfig } = await import("@kubernetes/client-node");
  const config = new KubeConfig();
  try {
    config.loadFromFile(kubeconfig);
  } catch {
    return undefined;
  }
  return config.getCurrentUser()?.token;
}

/** Why fetch could not reach `url`, in a few words. */
function unreachable(url: string, error: unknown): string {
  if (error instanceof Error && error.name === "TimeoutError") return `no answer from ${url} within ${TIMEOUT_MS / 1000}s`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === "ECONNREFUSED") return `cannot connect to ${url}: connection refused (${flags.url === undefined ? "is the stack running? start it with npm start" : "is the relay, or the port-forward to it, running?"})`;
  return `cannot reach ${url}: ${cause?.message ?? (error as Error).message}`;
}

/** Fetches and validates the list; any failure ends the process with one line. */
async function fetchGangs(url: string, bearer: string | undefined): Promise<GangList> {
  let response: Response;
  let text: string;
  try {
    const headers: Record<string, string> = { accept: "application/json", ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }) };
    response = await fetch(url, { headers, signal: AbortSignal.timeout(TIMEOUT_MS) });
    text = await response.text();
  } catch (error) {
    exitWith(unreachable(url, error));
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const refused = ErrorBody.safeParse(body);
    const message = refused.success ? refused.data.error.message : text.trim().replace(/\s+/g, " ").slice(0, 200) || response.statusText;
    const hint = response.status === 401 ? ` (pass --token TOKEN, a token whose user may list pods: kubectl create token <serviceaccount>)` : "";
    exitWith(`${url} answered ${response.status}: ${message}${hint}`);
  }
  if (body === undefined) exitWith(`${url} answered a body that is not JSON (is --url the relay's API port?)`);
  const list = GangList.safeParse(body);
  if (!list.success) {
    const issue = list.error.issues[0];
    exitWith(`${url} answered a body that is not a gang list (${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}); are the relay and this script the same version?`);
  }
  return list.data;
}

/** Prints one snapshot of the queue. */
function print(list: GangList): void {
  if (flags.output === "json") {
    process.stdout.write(`${JSON.stringify(list.items, null, 2)}\n`);
  } else if (list.items.length === 0) {
    console.error(flags.namespace === undefined ? "No gangs found." : `No gangs found in ${flags.namespace} namespace.`);
  } else {
    process.stdout.write(formatGangTable(list));
  }
}

const where = target();
const bearer = await token(where.kubeconfig);
const url = `${where.base.replace(/\/+$/, "")}${GANGS_PATH}${flags.namespace === undefined ? "" : `?${new URLSearchParams({ namespace: flags.namespace }).toString()}`}`;
print(await fetchGangs(url, bearer));
while (flags.watch) {
  await sleep(WATCH_SECONDS * 1000);
  const list = await fetchGangs(url, bearer);
  // On a terminal each snapshot replaces the last (as watch(1) does); piped, they follow each other.
  if (process.stdout.isTTY) process.stdout.write("\x1b[H\x1b[2J");
  else if (flags.output === "table") process.stdout.write("\n");
  print(list);
}
