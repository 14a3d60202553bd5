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
import { CONTROLLER_NAME_LABEL, CONTROLLER_NAME_VALUE, JOB_NAME_LABEL } from "../labels.ts";
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

const POD = { apiVersion: "v1", kind: "Pod" };

/** Where a request names one pod of a job: its coordinator, an aggregator, or any replica. */
const NAMING_A_POD = ["body.coordinator", "query.coordinator", "query.aggregator", "query.name"];

/** The job's pods and Services: those labelled with the job of the pod the request names. */
const OF_THE_NAMED_JOB = { sameNamespace: true, sharingLabels: { kind: POD, namedBy: NAMING_A_POD, labels: [JOB_NAME_LABEL] } };

/**
 * What the API reads, each kind narrowed so that a call costs what its job holds, not
 * what the cluster does: the pods and Services of the job whose pod the request names
 * (the label `nervexjob-name` of that pod; a GET naming no pod gets the NerveX pods of
 * its namespace — the list it answers; a request naming no namespace gets none), the
 * NerveXJob that owns the named pod, the one AggregatorConfig, and, for a request
 * asking for GPUs only, the nodes (their allocatable GPUs decide how GPUs are split).
 */
export const REPLICAS_RELATED: readonly RelatedObjectsInput[] = [
  { ...POD, ...OF_THE_NAMED_JOB },
  { ...POD, sameNamespace: true, selector: NERVEX_PODS, unlessNamed: NAMING_A_POD },
  { apiVersion: "v1", kind: "Service", ...OF_THE_NAMED_JOB },
  { apiVersion: NERVEX_API_VERSION, kind: "NerveXJob", ownerOf: { kind: POD, namedBy: NAMING_A_POD } },
  { apiVersion: NERVEX_API_VERSION, kind: "AggregatorConfig", named: [{ ...DEFAULT_AGGREGATOR_CONFIG }] },
  // Only a request for GPUs reads the nodes (their GPU counts decide the split).
  { apiVersion: "v1", kind: "Node", selector: {}, onlyWhen: ["body.learners.gpus"] },
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

/** Answers one request, purely; a bug answers 500 in the envelope, never a throw. */
export function handleReplicas(request: ApiRequest, settings: ControllerSettings): ApiAnswer {
  try {
    return route(request, settings);
  } catch (error) {
    return failedAnswer({ status: 500, message: `internal error: ${error instanceof Error ? error.message : String(error)}` });
  }
}

/** Whether a request creates replicas (`POST /v1alpha1/replicas`). */
function createsReplicas(request: ApiRequest): boolean {
  return request.method === "POST" && (request.path === REPLICAS_PATH || request.path === `${REPLICAS_PATH}/`);
}

/**
 * The replicas API. A POST retried within 10 s is decided afresh under its first
 * attempt's id: it creates only what that attempt did not, and answers the same replicas
 * (`./attempt.ts`). A retried DELETE or POST /failed gets the first answer again, its
 * deletes and creates included (all idempotent), so its reply follows their application.
 */
export const replicasApi: HttpApi = {
  spec: { name: "replicas", pathPrefix: REPLICAS_PATH, timeoutSeconds: 10, related: [...REPLICAS_RELATED] },
  retryWindowSeconds: 10,
  retriesConverge: createsReplicas,
  handle: handleReplicas,
};
