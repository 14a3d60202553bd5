/**
 * Runs a scenario against each server (both at once, each its steps in order), then
 * compares their normalised answers step by step.
 */
import { waitFor, WaitTimeout } from "../../cli/wait.ts";
import { diff, summarise, without, type Difference } from "./diff.ts";
import type { Endpoint, RawResponse, WatchResponse } from "./endpoint.ts";
import { collectTokens, normalise, Tokens } from "./normalise.ts";
import { isAction, type RequestStep, type Scenario } from "./scenario.ts";

/** One server as the runner drives it. */
export interface Target {
  readonly endpoint: Endpoint;
  /** Compacts the server's storage to now: watches from before get 410 Gone. */
  compact(): Promise<void>;
  /** Compacts, then restarts the API server (its watch cache starts over at the compacted revision). */
  restart(): Promise<void>;
  /** Waits until a new namespace is usable as a client finds it (its `default` ServiceAccount, where the server makes one). */
  namespaceReady(namespace: string): Promise<void>;
}

/** What one server answered to each step. */
interface StepAnswer {
  readonly label: string;
  readonly status: number;
  readonly body: unknown;
}

export interface StepDifference {
  readonly step: number;
  readonly label: string;
  readonly differences: readonly Difference[];
}

export interface ScenarioResult {
  readonly name: string;
  readonly identical: boolean;
  /** `identical`, or `differ: <first difference>`. */
  readonly line: string;
  readonly steps: readonly StepDifference[];
  /** A step that failed to run (a server unreachable, a request timed out). */
  readonly error?: string;
}

/** The scenario's namespace: `c-` and its name in DNS-label form. */
export function namespaceOf(scenario: Pick<Scenario, "name">): string {
  return `c-${scenario.name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")}`.slice(0, 63).replace(/-$/, "");
}

/** Runs `scenario` on both servers and compares. */
export async function runScenario(scenario: Scenario, sim: Target, real: Target): Promise<ScenarioResult> {
  const namespace = namespaceOf(scenario);
  let answers: [StepAnswer[], StepAnswer[]];
  try {
    answers = await Promise.all([play(scenario, sim, namespace), play(scenario, real, namespace)]);
  } catch (error) {
    return { name: scenario.name, identical: false, line: `differ: could not run: ${(error as Error).message}`, steps: [], error: (error as Error).message };
  }
  const [simAnswers, realAnswers] = answers;
  const simTokens = tokensOf(simAnswers);
  const realTokens = tokensOf(realAnswers);
  const steps: StepDifference[] = [];
  const requests = scenario.steps.filter((s): s is RequestStep => !isAction(s));
  requests.forEach((step, i) => {
    const a = simAnswers[i];
    const b = realAnswers[i];
    if (!a || !b) return;
    const mode = step.compare ?? "all";
    if (mode === "none") {
      const failed = [a, b].some((x) => x.status >= 400) && a.status !== b.status;
      if (failed) steps.push({ step: i + 1, label: a.label, differences: [{ path: "code", sim: a.status, real: b.status }] });
      return;
    }
    const left = without({ code: a.status, ...(mode === "all" ? { body: normalise(a.body, simTokens) } : {}) }, step.ignore ?? []);
    const right = without({ code: b.status, ...(mode === "all" ? { body: normalise(b.body, realTokens) } : {}) }, step.ignore ?? []);
    const differences = diff(left, right);
    if (differences.length > 0) steps.push({ step: i + 1, label: a.label, differences });
  });
  const first = steps[0];
  const line = first ? `differ: step ${first.step} (${first.label}): ${summarise(first.differences)}${steps.length > 1 ? ` [${steps.length} steps differ]` : ""}` : "identical";
  return { name: scenario.name, identical: steps.length === 0, line, steps };
}

function tokensOf(answers: readonly StepAnswer[]): Tokens {
  const tokens = new Tokens();
  for (const answer of answers) collectTokens(answer.body, tokens);
  return tokens;
}

/** Plays every step on one server; the namespace is created first and deleted after (not waited for). */
async function play(scenario: Scenario, target: Target, namespace: string): Promise<StepAnswer[]> {
  const { endpoint } = target;
  const created = await endpoint.request({ method: "POST", path: "/api/v1/namespaces", body: { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } } });
  if (created.status !== 201 && created.status !== 409) throw new Error(`${endpoint.name}: creating namespace ${namespace}: ${created.status} ${JSON.stringify(created.body)}`);
  await target.namespaceReady(namespace);
  const vars = new Map<string, unknown>([["ns", namespace]]);
  const answers: StepAnswer[] = [];
  try {
    for (const step of scenario.steps) {
      if (isAction(step)) {
        await (step.action === "restart" ? target.restart() : target.compact());
        continue;
      }
      const label = step.name ?? `${step.method} ${step.path.replace(/^\/apis?\/(?:[^/]+\/)?v1\//, "").replace(`namespaces/{ns}/`, "")}`;
      const response = await send(endpoint, step, vars);
      answers.push({ label, status: response.status, body: "events" in response && response.events.length > 0 ? response.events : response.body });
      for (const [name, path] of Object.entries(step.capture ?? {})) vars.set(name, at(response.body, path));
    }
  } finally {
    await endpoint.request({ method: "DELETE", path: `/api/v1/namespaces/${namespace}` }).catch(() => undefined);
  }
  return answers;
}

async function send(endpoint: Endpoint, step: RequestStep, vars: ReadonlyMap<string, unknown>): Promise<RawResponse | WatchResponse> {
  const request = {
    method: step.method,
    path: substitute(step.path, vars),
    ...(step.query ? { query: Object.fromEntries(Object.entries(step.query).map(([k, v]) => [k, substitute(v, vars)])) } : {}),
    ...(step.body !== undefined ? { body: substituteDeep(step.body, vars) } : {}),
    ...(step.contentType ? { contentType: step.contentType } : {}),
    ...(step.accept ? { accept: step.accept } : {}),
  };
  if (step.watch) return endpoint.watch(request, { count: step.watch.count, timeoutMs: step.watch.timeoutMs ?? 3_000 });
  const until = step.until;
  if (!until) return endpoint.request(request);
  // Past the deadline the last response is the step's answer: the step's checks then say what is wrong with it.
  let last: RawResponse | undefined;
  const respond = async (): Promise<RawResponse> => (last = await endpoint.request(request));
  try {
    return await waitFor(`${request.method} ${request.path} to match its step's until`, respond, (response) => matches(response, until), { timeoutMs: until.timeoutMs ?? 20_000, intervalMs: 200 });
  } catch (error) {
    if (error instanceof WaitTimeout && last) return last;
    throw error;
  }
}

function matches(response: RawResponse, until: NonNullable<RequestStep["until"]>): boolean {
  if (until.orStatus !== undefined && response.status === until.orStatus) return true;
  if (until.exists !== undefined && at(response.body, until.exists) === undefined) return false;
  if (until.status !== undefined && response.status !== until.status) return false;
  if (until.path !== undefined && JSON.stringify(at(response.body, until.path)) !== JSON.stringify(until.equals)) return false;
  return true;
}

/** The value at a dotted path (`items.0.metadata.name`, `items.length`). */
export function at(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const part of path.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    if (Array.isArray(current) && part === "length") current = current.length;
    else current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** `{name}` replaced by the captured value (a whole-string `{name}` keeps the value's type). */
export function substitute(text: string, vars: ReadonlyMap<string, unknown>): string {
  return text.replace(/\{([a-zA-Z][a-zA-Z0-9]*)\}/g, (whole, name: string) => (vars.has(name) ? String(vars.get(name)) : whole));
}

function substituteDeep(value: unknown, vars: ReadonlyMap<string, unknown>): unknown {
  if (typeof value === "string") {
    const whole = /^\{([a-zA-Z][a-zA-Z0-9]*)\}$/.exec(value);
    if (whole?.[1] !== undefined && vars.has(whole[1])) return vars.get(whole[1]);
    return substitute(value, vars);
  }
  if (Array.isArray(value)) return value.map((item) => substituteDeep(item, vars));
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteDeep(v, vars)]));
  return value;
}

