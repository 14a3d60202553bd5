/**
 * `GET /api/v1/namespaces/{ns}/pods/{name}/log`: what a simulated container wrote, as
 * text/plain, with the API server's and the kubelet's errors. Query parameters:
 * `container`, `previous`, `follow`, `tailLines`, `timestamps`, `sinceSeconds`,
 * `sinceTime`, `limitBytes`.
 */
import type { ServerResponse } from "node:http";
import type { KubeObject } from "../../protocol/index.ts";
import type { Cluster } from "../contract.ts";
import { containerLogsOf, type ContainerLogs, type LogEntry, type LogView } from "../controllers/container-logs.ts";
import { badRequest, invalid, methodNotAllowed, type Cause } from "../pipeline/errors.ts";
import { queryBool, queryInt } from "./query.ts";

type Obj = Record<string, unknown>;

const POD = { apiVersion: "v1", kind: "Pod" };

/** What the request asks for. */
interface LogOptions {
  readonly container: string;
  readonly previous: boolean;
  readonly follow: boolean;
  readonly timestamps: boolean;
  readonly tailLines: number | undefined;
  readonly limitBytes: number | undefined;
  /** Epoch ms: only lines from then on. */
  readonly since: number | undefined;
}

function list(value: unknown): Obj[] {
  return Array.isArray(value) ? (value as Obj[]) : [];
}

function names(containers: readonly Obj[]): string[] {
  return containers.map((c) => String(c.name ?? ""));
}

/** An integer parameter as kube-apiserver decodes it (a 400 worded as strconv.ParseInt when it is none), undefined when absent. */
function integer(q: URLSearchParams, field: string): number | undefined {
  return q.has(field) ? queryInt(q, field) : undefined;
}

/** ValidatePodLogOptions' range checks (pkg/apis/core/validation), a 422 about PodLogOptions. */
function rangeCauses(options: LogNumbers): Cause[] {
  const causes: Cause[] = [];
  const below = (field: string, value: number, detail: string): Cause => ({ field, reason: "FieldValueInvalid", message: `Invalid value: ${value}: ${detail}` });
  if (options.tailLines !== undefined && options.tailLines < 0) causes.push(below("tailLines", options.tailLines, "must be greater than or equal to 0"));
  if (options.limitBytes !== undefined && options.limitBytes < 1) causes.push(below("limitBytes", options.limitBytes, "must be greater than 0"));
  // field.NewPath("") prints as `[]`.
  if (options.sinceSeconds !== undefined && options.sinceTime !== null) causes.push({ field: "[]", reason: "FieldValueForbidden", message: "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified" });
  else if (options.sinceSeconds !== undefined && options.sinceSeconds < 1) causes.push(below("sinceSeconds", options.sinceSeconds, "must be greater than 0"));
  return causes;
}

/** The container the request means, as the API server's LogLocation picks and refuses it. */
function containerOf(pod: KubeObject, requested: string | null): string {
  const spec = ((pod as Obj).spec ?? {}) as Obj;
  const containers = names(list(spec.containers));
  const init = names(list(spec.initContainers));
  const ephemeral = names(list(spec.ephemeralContainers));
  const name = pod.metadata.name ?? "";
  if (requested) {
    if (![...containers, ...init, ...ephemeral].includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
    return requested;
  }
  if (containers.length === 1) return containers[0] ?? "";
  if (containers.length === 0) throw badRequest(`no containers in pod ${name}`);
  const initPart = init.length > 0 ? ` or one of the init containers: [${init.join(" ")}]` : "";
  throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.join(" ")}]${initPart}`);
}

/** The numeric options, decoded and range-checked as the API server does before it looks for the pod. */
interface LogNumbers {
  readonly tailLines: number | undefined;
  readonly limitBytes: number | undefined;
  readonly sinceSeconds: number | undefined;
  readonly sinceTime: string | null;
}

function logNumbers(name: string, q: URLSearchParams): LogNumbers {
  const numbers = { tailLines: integer(q, "tailLines"), limitBytes: integer(q, "limitBytes"), sinceSeconds: integer(q, "sinceSeconds"), sinceTime: q.get("sinceTime") };
  const causes = rangeCauses(numbers);
  if (causes.length > 0) throw invalid("PodLogOptions", "", name, causes);
  return numbers;
}

function parseOptions(pod: KubeObject, q: URLSearchParams, { tailLines, limitBytes, sinceSeconds, sinceTime }: LogNumbers): LogOptions {
  const flag = (field: string): boolean => queryBool(q, field);
  const since = sinceSeconds !== undefined ? Date.now() - sinceSeconds * 1000 : sinceTime !== null ? Date.parse(sinceTime) : undefined;
  if (since !== undefined && Number.isNaN(since)) throw badRequest(`sinceTime: Invalid value: "${sinceTime ?? ""}": must be RFC 3339`);
  return {
    container: containerOf(pod, q.get("container")),
    previous: flag("previous"),
    follow: flag("follow"),
    timestamps: flag("timestamps"),
    tailLines,
    limitBytes,
    since,
  };
}

/**
 * The kubelet's check that a container has logs to read (validateContainerLogStatus):
 * none before it started, no `previous` before it restarted. A container the kubelet
 * has not reported yet is still being created.
 */
function checkStarted(pod: KubeObject, container: string, previous: boolean): void {
  const status = ((pod as Obj).status ?? {}) as Obj;
  const statuses = [...list(status.containerStatuses), ...list(status.initContainerStatuses), ...list(status.ephemeralContainerStatuses)];
  const found = statuses.find((s) => s.name === container);
  const where = `container "${container}" in pod "${pod.metadata.name ?? ""}"`;
  const state = (found?.state ?? {}) as Obj;
  const lastTerminated = ((found?.lastState ?? {}) as Obj).terminated;
  if (previous) {
    if (!lastTerminated) throw badRequest(`previous terminated ${where} not found`);
    return;
  }
  if (state.running || state.terminated || lastTerminated) return;
  const reason = String(((state.waiting ?? {}) as Obj).reason ?? "ContainerCreating");
  throw badRequest(`${where} is waiting to start: ${reason}`);
}

/** RFC 3339 with nanoseconds as Go prints it (trailing zeros dropped). */
function goTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0+Z$/, "Z");
}

/** The text of the entries as the kubelet streams them; `tail` applies tailLines (the first write only). */
function render(entries: readonly LogEntry[], options: LogOptions, tail: boolean): string {
  const since = options.since;
  let selected = since === undefined ? entries : entries.filter((e) => e.time >= since);
  if (tail && options.tailLines !== undefined) selected = options.tailLines === 0 ? [] : selected.slice(-options.tailLines);
  return selected.map((e) => (options.timestamps ? `${goTime(e.time)} ${e.text}` : e.text)).join("");
}

/** Serves one pods/log request. */
export async function serveLogs(cluster: Cluster, namespace: string, name: string, method: string, q: URLSearchParams, response: ServerResponse): Promise<void> {
  if (method !== "GET") throw methodNotAllowed();
  const numbers = logNumbers(name, q);
  const pod = await cluster.get(POD, namespace, name);
  const options = parseOptions(pod, q, numbers);
  // A pod not bound to a node has no kubelet to ask: the API server answers with nothing.
  if (!((pod as Obj).spec as Obj | undefined)?.nodeName) {
    response.writeHead(204);
    return void response.end();
  }
  checkStarted(pod, options.container, options.previous);
  const logs = containerLogsOf(cluster);
  const uid = pod.metadata.uid ?? "";
  const view = logs.read(uid, options.container, options.previous, Date.now());
  response.writeHead(200, { "content-type": "text/plain", "cache-control": "no-cache, private" });
  const limit = new ByteLimit(options.limitBytes);
  if (!view) return void response.end();
  if (!limit.write(response, render(view.entries, options, true)) || !options.follow || view.ended) return void response.end();
  follow(logs, uid, options, view, limit, response);
}

/** `limitBytes`: writes stop once that many bytes went out. */
class ByteLimit {
  #left: number;
  constructor(limit: number | undefined) {
    this.#left = limit ?? Infinity;
  }

  /** Writes what still fits; false once the limit is reached. */
  write(response: ServerResponse, text: string): boolean {
    if (text === "") return this.#left > 0;
    const bytes = Buffer.from(text);
    const part = bytes.length <= this.#left ? bytes : bytes.subarray(0, this.#left);
    this.#left -= part.length;
    response.write(part);
    return this.#left > 0;
  }
}

/** `follow=true`: streams lines as they come until the container stops or the client goes. */
function follow(logs: ContainerLogs, uid: string, options: LogOptions, first: LogView, limit: ByteLimit, response: ServerResponse): void {
  let sent = first.entries.length;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let finished = false;
  const done = (): void => {
    if (finished) return;
    finished = true;
    unsubscribe();
    if (timer) clearTimeout(timer);
    response.end();
  };
  const pump = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const view = logs.read(uid, options.container, false, Date.now());
    if (!view || view.entries.length < sent) return done();
    const fresh = view.entries.slice(sent);
    sent = view.entries.length;
    if (!limit.write(response, render(fresh, options, false)) || view.ended) return done();
    if (view.nextAt !== undefined) timer = setTimeout(pump, Math.max(0, view.nextAt - Date.now()));
  };
  const unsubscribe = logs.subscribe(uid, options.container, pump);
  // The client going away (kubectl interrupted) ends the stream.
  response.on("close", done);
  if (first.nextAt !== undefined) timer = setTimeout(pump, Math.max(0, first.nextAt - Date.now()));
}
