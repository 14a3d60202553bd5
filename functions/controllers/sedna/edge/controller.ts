import type { ChannelDeclaration, DurableContext, EventsController } from "../../../kit/controller.ts";
import type { Watch } from "../../../../protocol/index.ts";
import { SEDNA_API_VERSION, SEDNA_GROUP } from "../group.ts";
import { labelPrefix } from "../labels.ts";
import { SEDNA_EDGE, SEDNA_EDGE_OBJECT_NAME, type SednaEdgeContract } from "./bindings.ts";

/**
 * The GlobalManager's WebSocket as upstream LocalControllers dial it: their DaemonSet sets
 * `GM_ADDRESS=gm.sedna:9000` (kubeedge/sedna `build/helm/sedna/charts/lc/templates/
 * daemonset.yaml`) and names its node in the `Node-Name` header.
 */
export const SEDNA_GM_CHANNEL: ChannelDeclaration = { name: "sedna-gm", endpoint: "sednaGM", port: 9000, peerHeader: "Node-Name", service: { namespace: "sedna", name: "gm" } };

/**
 * How long a worker pod's changes gather before they go to the edge object: a replaced
 * worker's deletion and creation are one batch (its start changes neither its labels nor
 * its node, so it is not sent at all).
 */
const POD_BATCH_MILLISECONDS = 100;

/** What the targets read of a worker pod: its owner and worker-type labels and its node (its deletion time is always kept). */
const POD_FIELDS = ["metadata.labels", "spec.nodeName"];

/**
 * The pods that carry a job or service to a node: FL training workers and JI edge workers
 * (each kind's own labels, `workerLabels`). Two watches of pods with different selectors:
 * the relay routes each by its own selector and delivers the union of their fields.
 */
function workerPods(kind: string, workerType: string): Watch {
  const prefix = labelPrefix(kind);
  return { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "self" }, labelSelector: `${prefix}/uid,${prefix}/worker-type=${workerType}`, fields: POD_FIELDS, batchMilliseconds: POD_BATCH_MILLISECONDS, batchDeletions: true };
}

function sednaKind(kind: string, resource: string): Watch {
  return { apiVersion: SEDNA_API_VERSION, kind, resource, namespaced: true, mapping: { by: "self" } };
}

function edge(context: DurableContext): SednaEdgeContract {
  return context.durableObject(SEDNA_EDGE, SEDNA_EDGE_OBJECT_NAME);
}

/**
 * Sedna's edge channel (ADR 0028): what upstream's GlobalManager keeps its nodes'
 * LocalControllers told, and what it takes back from them. Every event of the carried
 * kinds (whole objects: what an LC is sent) and of their edge worker pods goes to the one
 * `SednaEdge` Durable Object, which keeps what each node must hold and queues the insert
 * and delete frames the relay writes to the LCs' sockets; a node's status reports come
 * back as status writes (a job's round, a Model's metrics, a Dataset's sample count).
 */
const controller: EventsController = {
  name: "sedna-edge",
  delivery: "events",
  watches: [
    sednaKind("FederatedLearningJob", "federatedlearningjobs"),
    sednaKind("JointInferenceService", "jointinferenceservices"),
    sednaKind("Dataset", "datasets"),
    sednaKind("Model", "models"),
    workerPods("FederatedLearningJob", "train"),
    workerPods("JointInferenceService", "edge"),
  ],
  permissions: [
    // Read, and the status the LCs report written as upstream's GM writes it (upstream.go).
    { group: SEDNA_GROUP, resource: "federatedlearningjobs", access: ["read", "status"] },
    { group: SEDNA_GROUP, resource: "jointinferenceservices", access: ["read", "status"] },
    { group: SEDNA_GROUP, resource: "datasets", access: ["read", "status"] },
    { group: SEDNA_GROUP, resource: "models", access: ["read", "status"] },
    { group: "", resource: "pods", access: ["read"] },
  ],
  channels: [
    {
      spec: SEDNA_GM_CHANNEL,
      connect: (request, context) => edge(context).connectPeer(request),
      feed: (request, context) => edge(context).feed(request),
      receive: (request, context) => edge(context).receive(request),
    },
  ],
  handle: (batch, context) => edge(context).apply(batch),
};

export default controller;
