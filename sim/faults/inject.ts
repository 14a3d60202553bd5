/**
 * Where the API server meets its faults: before a resource request is served, the rules
 * decide; a delay waits and lets the request through (unless its client went away
 * meanwhile), a status answers it (with `Retry-After` when the rule gives one) instead.
 */
import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { ApiError } from "../contract.ts";
import type { SimFaults } from "./faults.ts";
import { verbOf } from "./rules.ts";

/** What the server knows of a resource request before it reads the body. */
export interface IncomingRequest {
  readonly method: string;
  readonly path: string;
  readonly watch: boolean;
  readonly resource: string;
  readonly subresource: string | undefined;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly contentType: string;
}

/** The Status reason kube-apiserver gives each code. */
export function reasonOf(code: number): string {
  switch (code) {
    case 409:
      return "Conflict";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "Unknown";
  }
}

/** The name a create's body gives (`name`, else `generateName`), when it is JSON. */
export function nameInBody(body: Buffer, contentType: string): string | undefined {
  if (!contentType.includes("json")) return undefined;
  try {
    const metadata = (JSON.parse(body.toString("utf8")) as { metadata?: { name?: unknown; generateName?: unknown } }).metadata;
    const name = metadata?.name ?? metadata?.generateName;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Applies the fault the rules choose for `request`, if any: waits (a delay) or throws the
 * `ApiError` to answer with, having set `Retry-After`. `readBody` reads the body once for
 * the server (only a create that a rule selects is read here, for its name).
 */
export async function injectFault(faults: SimFaults, request: IncomingRequest, readBody: () => Promise<Buffer>, response: ServerResponse): Promise<void> {
  const base = { verb: verbOf(request.method, request.name !== undefined, request.watch), resource: request.resource, subresource: request.subresource, namespace: request.namespace, name: request.name, method: request.method, path: request.path };
  if (!faults.selected(base)) return;
  const name = base.name ?? (base.verb === "create" ? nameInBody(await readBody(), request.contentType) : undefined);
  const answer = faults.decide({ ...base, name });
  if (answer === undefined) return;
  if (answer.type === "delay") {
    // A request still held when its client goes away is not served: a client killed mid-call leaves its held writes undone.
    let gone = false;
    response.once("close", () => {
      gone = true;
    });
    await sleep(answer.ms);
    if (gone) throw new ApiError(499, "ClientClosedRequest", `injected fault: the client went away while ${base.verb} ${request.resource}${name ? ` ${name}` : ""} was held`);
    return;
  }
  if (answer.retryAfterSeconds !== undefined) response.setHeader("Retry-After", String(answer.retryAfterSeconds));
  throw new ApiError(answer.code, reasonOf(answer.code), `injected fault: ${answer.code} for ${base.verb} ${request.resource}${name ? ` ${name}` : ""}`, answer.retryAfterSeconds !== undefined ? { retryAfterSeconds: answer.retryAfterSeconds } : undefined);
}
