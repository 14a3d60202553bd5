/**
 * The surfaces malformed framing is sent to, one per listening server: the Worker
 * (workerd), the relay's TLS front, its plain API port and its ops port, and the sim.
 * For each, the route the framing is aimed at and the request a wrong guess would
 * smuggle: on the relay's API ports a replicas POST that adds a collector pod to a
 * NerveX job of the workload, on the sim a ConfigMap create, on the Worker an unsigned
 * request, on the ops port a GET. Pure: built from the manifest and the workload.
 */
import fc from "fast-check";
import type { Manifest } from "../../protocol/index.ts";
import { framingCases, framingVariants, type FramingCase, type FramingTarget } from "./framing.ts";
import type { SurfaceTarget } from "./surfaces.ts";

/** One surface fed raw bytes. */
export interface FramingSurface {
  readonly name: string;
  readonly target: SurfaceTarget;
  /** The fixed cases, then `runs` generated variants (seeded). */
  cases(runs: number, seed: number): FramingCase[];
  /** The smuggled request on its own (a positive control: it must work, or smuggling it would prove nothing). */
  readonly control: { readonly bytes: Uint8Array; readonly changes: boolean };
}

/** What the surfaces are built from. */
export interface FramingContext {
  readonly manifest: Manifest;
  /** `host:port` of each target, for the Host header. */
  readonly hosts: Readonly<Partial<Record<SurfaceTarget, string>>>;
  /** A namespace and a NerveX coordinator pod of the workload. */
  readonly namespace: string;
  readonly coordinator: string;
}

/** The name of the ConfigMap a smuggled create on the sim would make. */
export const SMUGGLED_CONFIGMAP = "fuzz-smuggled";

/** Generated variants per surface: a fifth of `runs` (the fixed cases carry most of the coverage). */
function variantCount(runs: number): number {
  return Math.max(1, Math.floor(runs / 5));
}

/** A whole request: head with Host, Content-Type and Content-Length, then `body`. */
function wholeRequest(method: string, path: string, host: string, body: string): string {
  return `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** A surface; `control` is a request like the smuggled one but not the same (an API that remembers a body must not take the smuggled one for a retry of it). */
function surface(name: string, target: SurfaceTarget, framing: FramingTarget, control: string, changes: boolean): FramingSurface {
  return {
    name,
    target,
    cases: (runs, seed) => [...framingCases(framing), ...fc.sample(framingVariants(framing), { numRuns: variantCount(runs), seed })],
    control: { bytes: new TextEncoder().encode(control), changes },
  };
}

/** Every framing surface whose target the stack serves. */
export function framingSurfaces(context: FramingContext): FramingSurface[] {
  const { hosts } = context;
  const apis = context.manifest.controllers.flatMap((c) => c.apis);
  const replicas = apis.find((a) => a.name === "replicas");
  const out: FramingSurface[] = [];
  if (hosts.worker !== undefined) {
    const host = hosts.worker;
    const smuggled = wholeRequest("POST", "/v1/claims/release", host, "{}");
    out.push(surface("worker framing", "worker", { host, path: `/v1/api/${apis[0]?.name ?? "none"}`, smuggled }, smuggled, false));
  }
  for (const [target, name] of [["front", "relay front framing"], ["api", "relay API port framing"]] as const) {
    const host = hosts[target];
    if (host === undefined) continue;
    const path = replicas ? `${replicas.pathPrefix}?namespace=${context.namespace}` : "/no-api";
    const body = (group: string): string => JSON.stringify({ namespace: context.namespace, coordinator: context.coordinator, [group]: { replicas: 1 } });
    const request = (group: string): string => (replicas ? wholeRequest("POST", path, host, body(group)) : wholeRequest("GET", "/healthz", host, ""));
    out.push(surface(name, target, { host, path, smuggled: request("learners") }, request("collectors"), replicas !== undefined));
  }
  if (hosts.ops !== undefined) {
    const host = hosts.ops;
    const smuggled = `GET /metrics HTTP/1.1\r\nHost: ${host}\r\n\r\n`;
    out.push(surface("relay ops port framing", "ops", { host, path: "/readyz", smuggled }, smuggled, false));
  }
  if (hosts.sim !== undefined) {
    const host = hosts.sim;
    const path = `/api/v1/namespaces/${context.namespace}/configmaps`;
    const create = (name: string): string => wholeRequest("POST", path, host, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: context.namespace }, data: { smuggled: "yes" } }));
    out.push(surface("sim framing", "sim", { host, path, smuggled: create(SMUGGLED_CONFIGMAP) }, create(`${SMUGGLED_CONFIGMAP}-control`), true));
  }
  return out;
}

/** The control of `surface` answered a 2xx: its smuggled request works on its own. */
export function smuggledControl(statuses: readonly number[]): boolean {
  return statuses.some((s) => s >= 200 && s < 300);
}
