/**
 * Which expected slot each object of the chaos workload fills (see slots.ts): one key
 * per slot it fills, the same key again for each time it fills it twice (a toleration
 * added twice). Read by the final look and by the ledger's continuous count alike.
 */
import type { KubeObject } from "../../protocol/index.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reads of nested objects

/** The autonomy-duration the workload's edge nodes carry, in seconds. */
export const AUTONOMY_SECONDS = 20;

/** The kinds the workload's slots are filled by. */
export type SlotKind = "Pod" | "Deployment" | "Service" | "Event";

/** The slot keys `object` (of `kind`) fills; none while it is being deleted. */
export function slotKeys(kind: SlotKind, object: KubeObject): string[] {
  const o = object as Obj;
  if (o.metadata?.deletionTimestamp) return [];
  const name = String(o.metadata?.name);
  const labels = (o.metadata?.labels ?? {}) as Record<string, string>;
  if (kind === "Deployment") return [`ji/deployment/${name}`];
  if (kind === "Service") return labels["jointinferenceservice.sedna.io/name"] ? [`ji/service/${name}`] : [];
  // The gang scheduler's record of each bind (several for a pod bound again are one slot: see the look).
  if (kind === "Event") return o.reason === "Scheduled" && o.involvedObject?.kind === "Pod" && /^gang-/.test(String(o.involvedObject?.name)) ? [`gang/scheduled/${String(o.involvedObject.name)}`] : [];
  const keys: string[] = [];
  const fl = labels["federatedlearningjob.sedna.io/name"];
  if (fl) keys.push(`fl/${fl}/${String(labels["edgeloop.dev/worker"])}`);
  if (/^nx-\d+-coordinator$/.test(name)) keys.push(`nervex/coordinator/${name.replace(/-coordinator$/, "")}`);
  if (labels["fluxnetes.group-name"] && o.spec?.nodeName) keys.push(`gang/bound/${name}`);
  if (labels.app === "edge-web") {
    const autonomous = ((o.spec?.tolerations ?? []) as Obj[]).filter((t) => t.effect === "NoExecute" && (t.key === "node.kubernetes.io/not-ready" || t.key === "node.kubernetes.io/unreachable"));
    // One key per autonomous toleration beyond the two a pod has: a toleration added twice is a duplicate.
    if (autonomous.length >= 2 && autonomous.every((t) => t.tolerationSeconds === AUTONOMY_SECONDS)) for (let i = 1; i < autonomous.length; i++) keys.push(`autonomy/tolerations/${name}`);
  }
  return keys;
}
