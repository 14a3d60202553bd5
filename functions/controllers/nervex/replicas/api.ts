/**
 * NerveX's replicas API (upstream's `server/http`), served where `KUBERNETES_SERVER_URL`
 * points: `GET`, `POST` and `DELETE /v1alpha1/replicas` and `POST
 * /v1alpha1/replicas/failed`, every answer in upstream's envelope. Pure: the relay attaches
 * the related objects and applies the actions before it replies.
 */
import type { ApiAnswer, ApiRequest, RelatedObjectsInput } from "../../../../protocol/index.ts";
import type { ControllerSettings, HttpApi } from "../../../kit/controller.ts";
import { DEFAULT_AGGREGATOR_CONFIG } from "../aggregator-config.ts";
import { NERVEX_API_VERSION } from "../group.ts";
import { CONTROLLER_NAME_LABEL, CONTROLLER_NAME_VALUE } from "../labels.ts";
import { deleteReplicas } from "./delete.ts";
import { failedAnswer } from "./envelope.ts";
import { replaceFailed } from "./failed.ts";
import { getReplicas } from "./get.ts";
import { postReplicas } from "./post.ts";

/** Where the API is served. */
export const REPLICAS_PATH = "/v1alpha1/replicas";
/** Where failed replicas are replaced. */
export const FAILED_PATH = `${REPLICAS_PATH}/failed`;

const NERVEX_PODS = { matchLabels: { [CONTROLLER_NAME_LABEL]: CONTROLLER_NAME_VALUE } };

/**
 * What the API reads, each kind narrowed: NerveX pods of every namespace (a GET without a
 * namespace lists all coordinators; the handler keeps to the request's namespace
 * otherwise), NerveX Services and NerveXJobs of the request's namespace, the one
 * AggregatorConfig, and the nodes (their allocatable GPUs decide how GPUs are split).
 */
export const REPLICAS_RELATED: readonly RelatedObjectsInput[] = [
  { apiVersion: "v1", kind: "Pod", selector: NERVEX_PODS },
  { apiVersion: "v1", kind: "Service", sameNamespace: true, selector: NERVEX_PODS },
  { apiVersion: NERVEX_API_VERSION, kind: "NerveXJob", sameNamespace: true },
  { apiVersion: NERVEX_API_VERSION, kind: "AggregatorConfig", named: [{ ...DEFAULT_AGGREGATOR_CONFIG }] },
  { apiVersion: "v1", kind: "Node", selector: {} },
];

function route(request: ApiRequest, settings: ControllerSettings): ApiAnswer {
  if (request.path === REPLICAS_PATH || request.path === `${REPLICAS_PATH}/`) {
    switch (request.method) {
      case "GET":
        return getReplicas(request);
      case "POST":
        return postReplicas(request, settings);
      case "DELETE":
        return deleteReplicas(request);
      default:
        return failedAnswer({ status: 501, message: `method ${request.method} not implemented` });
    }
  }
  if (request.path === FAILED_PATH || request.path === `${FAILED_PATH}/`) {
    return request.method === "POST" ? replaceFailed(request) : failedAnswer({ status: 501, message: `method ${request.method} not implemented` });
  }
  return failedAnswer({ status: 404, message: `path ${request.path} not found` });
}

/** The replicas API; retried POSTs and DELETEs within 10 s get the first reply and apply nothing. */
export const replicasApi: HttpApi = {
  spec: { name: "replicas", pathPrefix: REPLICAS_PATH, timeoutSeconds: 10, related: [...REPLICAS_RELATED] },
  retryWindowSeconds: 10,
  handle(request: ApiRequest, settings: ControllerSettings): ApiAnswer {
    try {
      return route(request, settings);
    } catch (error) {
      return failedAnswer({ status: 500, message: `internal error: ${error instanceof Error ? error.message : String(error)}` });
    }
  },
};
