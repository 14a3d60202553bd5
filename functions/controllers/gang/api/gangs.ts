/**
 * `GET /v1/gangs`: the gang scheduler's queue as rows (namespace, group, state,
 * present/size, position, reserved start, nodes, deadline, why it waits), answered from
 * its Durable Object. `?namespace=` keeps one namespace's groups. Read-only: it applies
 * nothing, and the rows are those the queue's last pass left (ADR 0012).
 */
import type { ApiAnswer, ApiRequest } from "../../../../protocol/index.ts";
import { isDns1123Label } from "../../../../protocol/kube/names.ts";
import { GANG_QUEUE } from "../bindings.ts";
import { GANG_QUEUE_OBJECT_NAME } from "../queue-name.ts";
import { GANGS_PATH, type GangList } from "./schema.ts";
import type { DurableContext, HttpApi } from "../../../kit/controller.ts";

/** A JSON error naming the field, as every edgeloop API answers one. */
function refused(status: number, code: string, message: string, path: string): ApiAnswer {
  return { status, body: { error: { code, message, path } } };
}

/** The rows of `request`'s namespace (all when it names none). */
export async function listGangs(request: ApiRequest, context: DurableContext): Promise<ApiAnswer> {
  if (request.path !== GANGS_PATH && request.path !== `${GANGS_PATH}/`) return refused(404, "not_found", `no such path ${request.path}; the gang queue is at ${GANGS_PATH}`, "path");
  if (request.method !== "GET" && request.method !== "HEAD") return refused(405, "method_not_allowed", `${request.method} is not served; ${GANGS_PATH} answers GET`, "method");
  const namespace = request.query.namespace;
  if (namespace !== undefined && isDns1123Label(namespace).length > 0) return refused(400, "invalid_namespace", `namespace ${JSON.stringify(namespace.slice(0, 80))} is not a valid namespace name`, "query.namespace");
  const nowMs = Date.parse(request.now);
  const rows = await context.durableObject(GANG_QUEUE, GANG_QUEUE_OBJECT_NAME).groups(nowMs);
  const body: GangList = { now: request.now, items: namespace === undefined ? rows : rows.filter((row) => row.namespace === namespace) };
  return { status: 200, body };
}

/**
 * The inspection API, served by the relay at `/v1/gangs`. Its rows name pods' groups in
 * every namespace: a caller sees those of the namespaces where it may `list pods` (the
 * relay asks the API server, ADR 0010), since a group's row tells what `kubectl get pods`
 * would (its pods, their nodes, why they wait) and nothing more.
 */
export const gangsApi: HttpApi = {
  spec: { name: "gangs", pathPrefix: GANGS_PATH, timeoutSeconds: 30, readers: { group: "", resource: "pods", verb: "list", items: "items" } },
  handle: (request, _settings, context) => listGangs(request, context),
};
