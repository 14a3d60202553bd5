/**
 * The upstream LocalController DaemonSet (Sedna's Helm chart, byte for byte in
 * functions/controllers/sedna/fixtures, sources in SOURCES.md there), rendered as `helm
 * template` renders it with the chart's own values, and the GM address it dials.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import type { KubeObject } from "../../protocol/index.ts";

const FIXTURES = join(import.meta.dirname, "../../functions/controllers/sedna/fixtures");

/** `{{ .Values.a.b }}`: the only template expressions of the chart's DaemonSet. */
const VALUE_REFERENCE = /\{\{\s*\.Values\.([A-Za-z0-9_.]+)\s*\}\}/g;

/** The chart's DaemonSet with its values filled in (an unknown reference throws, as `helm template --strict` would fail). */
export function upstreamLocalControllerDaemonSet(): KubeObject {
  const values = parse(readFileSync(join(FIXTURES, "lc-values.yaml"), "utf8")) as Record<string, unknown>;
  const template = readFileSync(join(FIXTURES, "lc-daemonset.yaml"), "utf8");
  const rendered = template.replace(VALUE_REFERENCE, (_all, path: string) => {
    const value = path.split(".").reduce<unknown>((at, part) => (at !== null && typeof at === "object" ? (at as Record<string, unknown>)[part] : undefined), values);
    if (typeof value !== "string" && typeof value !== "number") throw new Error(`lc-values.yaml has no value at .Values.${path}`);
    return String(value);
  });
  return parse(rendered) as KubeObject;
}

/** The Service the upstream LC dials by default: its DaemonSet's `GM_ADDRESS` (`<service>.<namespace>:<port>`). */
export function upstreamGmAddress(): { readonly value: string; readonly service: string; readonly namespace: string; readonly port: number } {
  const daemonSet = upstreamLocalControllerDaemonSet() as KubeObject & { spec: { template: { spec: { containers: Array<{ env?: Array<{ name: string; value?: string }> }> } } } };
  const value = daemonSet.spec.template.spec.containers[0]?.env?.find((e) => e.name === "GM_ADDRESS")?.value;
  const match = value === undefined ? null : /^([a-z0-9-]+)\.([a-z0-9-]+):(\d+)$/.exec(value);
  if (!match) throw new Error(`the upstream LC's GM_ADDRESS is not <service>.<namespace>:<port>: ${String(value)}`);
  return { value: match[0], service: match[1] ?? "", namespace: match[2] ?? "", port: Number(match[3]) };
}
