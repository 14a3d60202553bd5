import { HttpError } from "../http/errors.ts";
import { resolveClaims } from "../claims.ts";
import type { WorkerDeps } from "../deps.ts";
import { OUTBOX_OBJECT_NAME } from "../../durable/names.ts";
import { OUTBOX } from "../../durable/table.ts";
import type { EventsContext } from "../kit/controller.ts";
import { EventBatch, Plan, ReconcileRequest, kindKey, snapshotPart, type Watch } from "../../protocol/index.ts";
import type { Registry } from "../registry.ts";
import { parseJson } from "../http/body.ts";

/** `POST /v1/reconcile/:controller`: a snapshot in, a plan out. */
export async function reconcileRoute(registry: Registry, name: string, body: Uint8Array, deps: WorkerDeps): Promise<Plan> {
  const controller = registry.controller(name);
  if (!controller) throw new HttpError(404, "unknown_controller", `no controller named ${name}`, "controller");
  if (controller.delivery !== "snapshot") {
    throw new HttpError(400, "wrong_delivery", `controller ${name} takes event batches at /v1/events/${name}`, "controller");
  }
  const request = parseJson(body, ReconcileRequest);
  if (request.controller !== name) throw new HttpError(400, "invalid", `body names controller ${request.controller}, the path ${name}`, "controller");
  const missing = missingKind(request, controller.watches);
  if (missing) throw new HttpError(400, "invalid", `every declared kind must be present (maybe empty); ${missing} is missing`, missing);
  return resolveClaims(controller.reconcile(request, deps.settings), request.key, deps.ledger);
}

/**
 * The path (`children.Pod.v1`) of the first declared kind the request lacks, if any: the
 * Worker's one reading of the mapping (the protocol says which part carries each watch).
 */
function missingKind(request: ReconcileRequest, watches: readonly Watch[]): string | undefined {
  for (const watch of watches) {
    const part = snapshotPart(watch.mapping);
    if (part === "parent" || part === "none") continue;
    const kind = kindKey(watch);
    if (!Object.hasOwn(request[part], kind)) return `${part}.${kind}`;
  }
  return undefined;
}

/** What an events controller reaches: the Outbox bound to its name, and every declared Durable Object. */
function eventsContext(controller: string, deps: WorkerDeps): EventsContext {
  return {
    outbox: { append: (plan, key) => deps.durableObject(OUTBOX, OUTBOX_OBJECT_NAME).append(controller, plan, key) },
    durableObject: deps.durableObject,
  };
}

/** `POST /v1/events/:controller`: ordered watch events in, a plan out. */
export async function eventsRoute(registry: Registry, name: string, body: Uint8Array, deps: WorkerDeps): Promise<Plan> {
  const controller = registry.controller(name);
  if (!controller) throw new HttpError(404, "unknown_controller", `no controller named ${name}`, "controller");
  if (controller.delivery !== "events") {
    throw new HttpError(400, "wrong_delivery", `controller ${name} takes snapshots at /v1/reconcile/${name}`, "controller");
  }
  const batch = parseJson(body, EventBatch);
  if (batch.controller !== name) throw new HttpError(400, "invalid", `body names controller ${batch.controller}, the path ${name}`, "controller");
  await deps.beforeStateChange();
  return Plan.parse(await controller.handle(batch, eventsContext(name, deps)));
}
