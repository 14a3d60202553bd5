/**
 * From a request's `related` objects to what it names: the coordinator pod, the job that
 * owns it (by the coordinator's controller ownerReference), and that job's pods. Pods
 * belong to a job only through a controller ownerReference to its uid, so a pod of
 * another job (or of nobody) is never listed or touched, whatever its labels say.
 */
import type { ApiRequest, KubeObject, OwnerReference } from "../../../../protocol/index.ts";
import { controllerOfType, isControlledByUid } from "../../../../protocol/kube/owner.ts";
import { boundedLabelValue } from "../../../kit/names.ts";
import { AggregatorConfig, DEFAULT_AGGREGATOR_CONFIG } from "../aggregator-config.ts";
import { NERVEX_API_VERSION } from "../group.ts";
import type { ReplicaType } from "../labels.ts";
import { NerveXJob } from "../schema.ts";
import { failure, success, type Outcome } from "./envelope.ts";
import { describeIssue } from "./issues.ts";
import { replicaTypeOf } from "./urls.ts";

/** The `related` keys of the kinds the API reads. */
export const POD_KEY = "Pod.v1";
export const SERVICE_KEY = "Service.v1";
export const NODE_KEY = "Node.v1";
export const JOB_KEY = `NerveXJob.${NERVEX_API_VERSION}`;
export const AGGREGATOR_CONFIG_KEY = `AggregatorConfig.${NERVEX_API_VERSION}`;

/**
 * The label that ties a ddp-learner to its aggregator (the aggregator pod's name). Upstream
 * made the aggregator pod the ddp-learners' owner, but a create cannot name the uid of a
 * pod created earlier in the same answer, so ours are owned by the job and labelled.
 */
export const AGGREGATOR_NAME_LABEL = "aggregator-name";

/** The job a coordinator belongs to, and the pods of that job in its namespace. */
export interface CoordinatedPods {
  readonly namespace: string;
  readonly coordinator: KubeObject;
  /** The coordinator's controller ownerReference (the job's name and uid). */
  readonly job: OwnerReference;
  /** Every pod the job controls in the namespace (the coordinator too), by name. */
  readonly pods: readonly KubeObject[];
}

function byName(a: KubeObject, b: KubeObject): number {
  const x = a.metadata.name ?? "";
  const y = b.metadata.name ?? "";
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The related objects of one kind in one namespace. */
export function relatedIn(request: ApiRequest, key: string, namespace: string): KubeObject[] {
  return (request.related[key] ?? []).filter((o) => o.metadata.namespace === namespace);
}

/** The NerveXJob controller ownerReference of a pod, if any. */
export function jobRefOf(pod: KubeObject): OwnerReference | undefined {
  const ref = controllerOfType(pod, { apiVersion: NERVEX_API_VERSION, kind: "NerveXJob" });
  return ref && ref.uid !== "" ? ref : undefined;
}

/** Whether the object is being deleted. */
export function terminating(object: KubeObject): boolean {
  return object.metadata.deletionTimestamp !== undefined;
}

/** The pods of a job (by its uid) in a namespace, by name. */
export function podsOfJob(request: ApiRequest, namespace: string, jobUid: string): KubeObject[] {
  return relatedIn(request, POD_KEY, namespace)
    .filter((pod) => isControlledByUid(pod, jobUid))
    .sort(byName);
}

/** A job's live pods of some replica types, by name. */
export function live(pods: readonly KubeObject[], ...types: readonly ReplicaType[]): KubeObject[] {
  return pods.filter((pod) => {
    const type = replicaTypeOf(pod);
    return !terminating(pod) && type !== undefined && types.includes(type);
  });
}

/** Every coordinator pod visible to the request (all namespaces), by namespace then name. */
export function allCoordinators(request: ApiRequest): KubeObject[] {
  return (request.related[POD_KEY] ?? [])
    .filter((pod) => replicaTypeOf(pod) === "coordinator" && !terminating(pod) && jobRefOf(pod) !== undefined)
    .sort((a, b) => ((a.metadata.namespace ?? "") === (b.metadata.namespace ?? "") ? byName(a, b) : (a.metadata.namespace ?? "") < (b.metadata.namespace ?? "") ? -1 : 1));
}

/** The coordinator pod of a job among its pods (the first by name), if any. */
export function coordinatorOf(pods: readonly KubeObject[]): KubeObject | undefined {
  return pods.find((pod) => replicaTypeOf(pod) === "coordinator" && !terminating(pod)) ?? pods.find((pod) => replicaTypeOf(pod) === "coordinator");
}

/** The coordinator named by a request, its job and the job's pods; 404 when there is no such coordinator of a NerveXJob. */
export function findCoordinator(request: ApiRequest, namespace: string, name: string): Outcome<CoordinatedPods> {
  const coordinator = relatedIn(request, POD_KEY, namespace).find((pod) => pod.metadata.name === name);
  if (!coordinator || replicaTypeOf(coordinator) !== "coordinator") return failure(404, `coordinator ${namespace}/${name} not found`);
  const job = jobRefOf(coordinator);
  if (!job) return failure(404, `coordinator ${namespace}/${name} belongs to no NerveXJob`);
  return success({ namespace, coordinator, job, pods: podsOfJob(request, namespace, job.uid) });
}

/**
 * The NerveXJob a coordinator belongs to, read from `related` by uid: 404 when it is gone,
 * 409 while it is being deleted (no new pod would outlive it), 500 when it does not parse.
 */
export function findJob(request: ApiRequest, coordinated: CoordinatedPods): Outcome<NerveXJob> {
  const { namespace, job } = coordinated;
  const object = relatedIn(request, JOB_KEY, namespace).find((o) => o.metadata.uid === job.uid);
  if (!object) return failure(404, `NerveXJob ${namespace}/${job.name} not found`);
  if (terminating(object)) return failure(409, `NerveXJob ${namespace}/${job.name} is being deleted`);
  const parsed = NerveXJob.safeParse(object);
  if (!parsed.success) return failure(500, `NerveXJob ${namespace}/${job.name} is invalid: ${describeIssue(parsed.error, "object")}`);
  return success(parsed.data);
}

/** The AggregatorConfig the server reads (`nervex-system/aggregator-config`): 404 when absent, 500 when invalid. */
export function findAggregatorConfig(request: ApiRequest): Outcome<AggregatorConfig> {
  const { namespace, name } = DEFAULT_AGGREGATOR_CONFIG;
  const object = (request.related[AGGREGATOR_CONFIG_KEY] ?? []).find((o) => o.metadata.namespace === namespace && o.metadata.name === name);
  if (!object) return failure(404, `AggregatorConfig ${namespace}/${name} not found: it is needed for learners with more than one GPU`);
  const parsed = AggregatorConfig.safeParse(object);
  if (!parsed.success) return failure(500, `AggregatorConfig ${namespace}/${name} is invalid: ${describeIssue(parsed.error, "object")}`);
  return success(parsed.data);
}

/**
 * The live ddp-learners of an aggregator pod of job `jobUid`, by name, among a namespace's
 * pods: those the job controls labelled with the aggregator's name (ours), or those the
 * aggregator pod itself controls (upstream's).
 */
export function ddpLearnersOf(aggregator: KubeObject, jobUid: string, namespacePods: readonly KubeObject[]): KubeObject[] {
  const label = boundedLabelValue(aggregator.metadata.name ?? "");
  const uid = aggregator.metadata.uid;
  return live(namespacePods, "ddp-learner")
    .filter((pod) => (isControlledByUid(pod, jobUid) && pod.metadata.labels?.[AGGREGATOR_NAME_LABEL] === label) || (uid !== undefined && uid !== "" && isControlledByUid(pod, uid)))
    .sort(byName);
}
