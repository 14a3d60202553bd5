/**
 * What the gang scheduler adds to the Worker's bindings (ADR 0022): its queue's Durable
 * Object (the class in `durable.ts`, ADR 0012), with the contract the controller and the
 * inspection API call it by, and its variables with their defaults (`settings.ts`). The
 * deploy configuration and miniflare's options are derived from this; nothing outside
 * the folder names it.
 */
import type { EventBatch, Plan } from "../../../protocol/index.ts";
import { declareDurableObject, type FamilyBindings } from "../../kit/bindings.ts";
import type { GangRow } from "./api/schema.ts";
import { GANG_VAR_DEFAULTS } from "./settings.ts";

/** What the queue object answers over RPC (one object for the cluster, `queue-name.ts`). */
export interface GangQueueContract {
  /** Takes an events batch of pods and nodes; answers the plan of the pass it allows (binds, Events, statuses). */
  apply(batch: EventBatch): Promise<Plan>;
  /** One row per group, as of `nowMs`. */
  groups(nowMs: number): Promise<GangRow[]>;
}

/** The queue's Durable Object. Its migration tag predates dated tags (ADR 0022) and stays as deployed. */
export const GANG_QUEUE = declareDurableObject<GangQueueContract>({ binding: "GANG", className: "GangQueue", migration: "v3" });

const bindings: FamilyBindings = {
  durableObjects: [GANG_QUEUE],
  vars: Object.fromEntries(Object.entries(GANG_VAR_DEFAULTS).map(([name, value]) => [name, String(value)])),
};

export default bindings;
