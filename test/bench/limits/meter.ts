/**
 * A front between the relay and the Worker that measures each request as Cloudflare bills
 * and limits it (issue 35, item 5): its route, the bytes each way, and the CPU workerd spent
 * on it. workerd runs every request of the Worker and its Durable Objects in one process,
 * so the front lets one request at a time through and reads the process's CPU
 * (`/proc/PID/task/*\/schedstat`, ns) before and after: the difference is that request's,
 * the Durable Object calls it made included. The long polls (`GET /v1/outbox`, a channel's
 * `feed`) pass at once, or they would hold every other request behind them: they are
 * measured for their bytes, and a measured request after whose start one was answered
 * before the next began (workerd may have worked for both) is counted but not timed.
 *
 * While {@link WorkerMeter.serializing} is false (the cost bench; the limits bench's bursts,
 * whose Durable Object request rates one request at a time would understate) nothing
 * waits: every request passes at once and is counted, with its bytes, untimed.
 *
 * Between requests it reads the isolate's V8 heap through workerd's inspector
 * (`Runtime.getHeapUsage`, the heap used before any collection: garbage included), and the
 * Durable Objects' own meters (`durable/usage.ts`) around the largest request of each
 * route, for the Durable Object calls it made.
 */
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readdirSync, readFileSync } from "node:fs";

/** Routes answered as long polls: never held behind another request, not timed. */
const LONG_POLL = [/^GET \/v1\/outbox$/, /^POST \/v1\/channels\/[^/]+\/feed$/];

/** Hop-by-hop headers: the front sends whole bodies with their length. */
const HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "host"]);

/** What the front measured of one route. */
export interface RouteFigures {
  readonly route: string;
  requests: number;
  /** Requests timed alone (no long poll answered meanwhile). */
  timed: number;
  /** The largest CPU time of a request timed alone (ms), and that request's bytes. */
  maxCpuMs: number;
  heaviest: { requestBytes: number; responseBytes: number } | undefined;
  /** CPU times of every request timed alone (ms). */
  readonly cpuMs: number[];
  maxRequestBytes: number;
  maxResponseBytes: number;
  /** Durable Object calls of the largest request (by its body) whose calls were counted. */
  durableCalls: number | undefined;
}

/** The Durable Object calls the Worker made meanwhile: a sum of every object's request count. */
export type DurableCallCounter = () => Promise<number>;

/** workerd's CPU time so far, all its threads (ns), from the scheduler's statistics. */
export function processCpuNs(pid: number): number {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // A thread that ended between the listing and the read: its time is gone from the total either way.
    }
  }
  return total;
}

/** The route of a request: its method and path, the query left off (`POST /v1/events/gang`). */
export function routeOf(method: string, url: string): string {
  return `${method} ${url.split("?")[0]}`;
}

/** The front: its URL for the relay, and what it measured. */
export class WorkerMeter {
  readonly #server: Server;
  readonly #target: URL;
  readonly #pid: number;
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 64 });
  readonly #routes = new Map<string, RouteFigures>();
  readonly #durableCalls: DurableCallCounter | undefined;
  /** Whether requests go one at a time and are timed (else they pass at once, counted only). */
  serializing: boolean;
  /** The request being timed: the long polls answered meanwhile spoil its time. */
  #disturbed = false;
  /** The last timed request, recorded when the next one starts (or the figures are read) if nothing disturbed it. */
  #unsettled: { readonly figures: RouteFigures; readonly cpuMs: number; readonly requestBytes: number; readonly responseBytes: number } | undefined;
  /** One request at a time through the timed path. */
  #turn: Promise<void> = Promise.resolve();
  #afterEach: (() => Promise<void>) | undefined;

  private constructor(server: Server, target: URL, pid: number, durableCalls: DurableCallCounter | undefined, serialize: boolean) {
    this.serializing = serialize;
    this.#server = server;
    this.#target = target;
    this.#pid = pid;
    this.#durableCalls = durableCalls;
  }

  /** Listens on 127.0.0.1 in front of `target` (the Worker's URL), whose workerd is `pid`; `serialize` false only counts. */
  static async start(target: string, pid: number, durableCalls?: DurableCallCounter, serialize = true): Promise<WorkerMeter> {
    const holder: { meter?: WorkerMeter } = {};
    const server = createServer((req, res) => void holder.meter?.handle(req, res));
    const meter = (holder.meter = new WorkerMeter(server, new URL(target), pid, durableCalls, serialize));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return meter;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Runs `work` after every timed request, before the next one starts (a heap reading). */
  afterEach(work: () => Promise<void>): void {
    this.#afterEach = work;
  }

  /** Every route measured so far. */
  routes(): RouteFigures[] {
    this.#settle();
    return [...this.#routes.values()];
  }

  /** Requests forwarded so far, every route. */
  get requests(): number {
    let total = 0;
    for (const route of this.#routes.values()) total += route.requests;
    return total;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#agent.destroy();
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = Buffer.concat(await req.toArray());
    const route = routeOf(req.method ?? "GET", req.url ?? "/");
    const figures = this.#figures(route);
    figures.requests += 1;
    figures.maxRequestBytes = Math.max(figures.maxRequestBytes, body.length);
    try {
      // A request let through at once (a long poll, or any while not serializing) shares workerd with the one being timed.
      const answer = this.serializing && !LONG_POLL.some((pattern) => pattern.test(route)) ? await this.#timed(req, body, figures) : await this.#untimed(req, body);
      figures.maxResponseBytes = Math.max(figures.maxResponseBytes, answer.body.length);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    } catch (error) {
      res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "meter", message: error instanceof Error ? error.message : String(error) }));
    }
  }

  async #untimed(req: IncomingMessage, body: Buffer): Promise<Answer> {
    const answer = await this.#forward(req, body);
    this.#disturbed = true;
    return answer;
  }

  /** Waits its turn, then forwards alone and times workerd's CPU across it. */
  async #timed(req: IncomingMessage, body: Buffer, figures: RouteFigures): Promise<Answer> {
    const previous = this.#turn;
    let done = (): void => undefined;
    this.#turn = new Promise<void>((resolve) => (done = resolve));
    await previous;
    try {
      // The calls of the largest request so far (its body sets the route's largest): a sweep of every object's meter before and after.
      const countCalls = body.length >= figures.maxRequestBytes ? this.#durableCalls : undefined;
      const callsBefore = countCalls ? await countCalls() : 0;
      // The last request's time is kept only if no long poll was answered since it started: a poll
      // answered just after it may have been built during it (its frames), so its end is not enough.
      this.#settle();
      this.#disturbed = false;
      const before = processCpuNs(this.#pid);
      const answer = await this.#forward(req, body);
      const cpuMs = (processCpuNs(this.#pid) - before) / 1e6;
      if (countCalls) figures.durableCalls = (await countCalls()) - callsBefore;
      this.#unsettled = { figures, cpuMs, requestBytes: body.length, responseBytes: answer.body.length };
      await this.#afterEach?.();
      return answer;
    } finally {
      done();
    }
  }

  /** Records the last timed request unless a long poll was answered since it began. */
  #settle(): void {
    const sample = this.#unsettled;
    this.#unsettled = undefined;
    if (!sample || this.#disturbed) return;
    const { figures, cpuMs } = sample;
    figures.timed += 1;
    figures.cpuMs.push(cpuMs);
    if (cpuMs > figures.maxCpuMs) {
      figures.maxCpuMs = cpuMs;
      figures.heaviest = { requestBytes: sample.requestBytes, responseBytes: sample.responseBytes };
    }
  }

  #forward(req: IncomingMessage, body: Buffer): Promise<Answer> {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP.has(name)) headers[name] = value;
    headers["content-length"] = String(body.length);
    return new Promise<Answer>((resolve, reject) => {
      const out = httpRequest({ host: this.#target.hostname, port: this.#target.port, method: req.method, path: req.url, headers, agent: this.#agent }, (response) => {
        void response.toArray().then((chunks) => resolve({ status: response.statusCode ?? 502, headers: forwardable(response.headers), body: Buffer.concat(chunks as Buffer[]) }), reject);
      });
      out.on("error", reject);
      out.end(body);
    });
  }

  #figures(route: string): RouteFigures {
    let figures = this.#routes.get(route);
    if (!figures) {
      figures = { route, requests: 0, timed: 0, maxCpuMs: 0, heaviest: undefined, cpuMs: [], maxRequestBytes: 0, maxResponseBytes: 0, durableCalls: undefined };
      this.#routes.set(route, figures);
    }
    return figures;
  }
}

/** An answer, read whole. */
interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  readonly body: Buffer;
}

function forwardable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP.has(name)) kept[name] = value;
  return kept;
}
