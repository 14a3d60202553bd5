/**
 * `POST /v1alpha1/replicas`: creates collectors and learners for a coordinator's job,
 * from the job's templates, each pod with its headless Service, owned by the job, the
 * resources asked for set as requests and limits. A learner asking for more than one GPU
 * becomes an aggregator (AggregatorConfig's template) and ddp-learners holding its GPUs
 * (split by the most common per-node GPU count); its URL is the aggregator's. The reply
 * (the created URLs) is sent only once every create is applied; a failed create answers
 * 500 in the envelope. Names come from the request's id, which for a retry within the
 * window is the first attempt's: what that attempt made (`./attempt.ts`) is not created
 * again, and the reply names the same replicas.
 */
import { changeAnswer } from "./change.ts";
import type { Action, ApiAnswer, ApiRequest, KubeObject } from "../../../../protocol/index.ts";
import type { ControllerSettings } from "../../../kit/controller.ts";
import type { PodTemplate } from "../../../kit/pod.ts";
import type { ReplicaType } from "../labels.ts";
import { GPU_RESOURCE, replicaObjects, replicaUrl } from "../replica-pod.ts";
import type { NerveXJob } from "../schema.ts";
import { isZeroQuantity, parseBody, ReplicasBody, type ReplicaResources } from "./body.ts";
import { asDdpLearner, ddpEnv } from "./ddp.ts";
import { failedAnswer, failure, success, type Outcome } from "./envelope.ts";
import { commonGpuCount, layoutLearners, nodeGpus, type LearnerLayout } from "./gpu-split.ts";
import { madeBy, madeKey, marked } from "./attempt.ts";
import { findAggregatorConfig, findCoordinator, findJob, NODE_KEY, POD_KEY, relatedIn, SERVICE_KEY } from "./lookup.ts";
import { nameSource, type NameSource } from "./naming.ts";
import type { ReplicaSet } from "./replica-set.ts";

/** The message of a successful POST, as upstream's. */
export const CREATE_MESSAGE = "successfully create replicas";
/** The message a failed create is answered with (the API server's error is appended). */
export const CREATE_FAILED_MESSAGE = "failed to create replicas";
/** The most pods one request may create (aggregators and ddp-learners included). */
export const MAX_CREATED_PODS = 500;

/**
 * The quantities of a group as a container's resources (`cpu`, `memory`,
 * `nvidia.com/gpu`), zero ones left out (the client sends 0 for "not asked"); `gpus`
 * overrides the group's.
 */
export function resourcesOf(group: ReplicaResources, gpus = group.gpus): Record<string, string> {
  const resources: Record<string, string> = {};
  if (group.cpus !== undefined && !isZeroQuantity(group.cpus)) resources["cpu"] = group.cpus;
  if (group.memory !== undefined && !isZeroQuantity(group.memory)) resources["memory"] = group.memory;
  if (gpus > 0) resources[GPU_RESOURCE] = String(gpus);
  return resources;
}

/** What one request builds: actions in order, and the URLs to answer. */
interface Built {
  readonly actions: Action[];
  readonly collectors: string[];
  readonly learners: string[];
}

interface Context {
  readonly job: NerveXJob;
  /** The id of the request's first attempt: every created object is marked with it. */
  readonly requestId: string;
  /** What that attempt already made (`Kind/name`): not created again. */
  readonly made: ReadonlySet<string>;
  readonly namespace: string;
  readonly settings: ControllerSettings;
  readonly names: NameSource;
  readonly built: Built;
}

/** Creates of the objects the first attempt has not made yet, marked as this request's. */
function create(context: Context, ...objects: KubeObject[]): void {
  for (const object of objects) {
    if (!context.made.has(madeKey(object))) context.built.actions.push({ type: "create", object: marked(object, context.requestId), ifAbsent: true });
  }
}

/** One plain replica (collector or learner) from a template; returns its URL. */
function plainReplica(context: Context, type: ReplicaType, template: PodTemplate, resources: Record<string, string>): string {
  const name = context.names.next(type);
  const { pod, service, port } = replicaObjects({ job: context.job, type, name, template, settings: context.settings, resources });
  create(context, pod, service);
  return replicaUrl(name, context.namespace, port);
}

/** One aggregator and its ddp-learners; returns the aggregator's URL. */
function aggregatorGroup(context: Context, aggregatorTemplate: PodTemplate, learnerTemplate: PodTemplate, split: readonly number[], group: ReplicaResources): string {
  const { job, namespace, settings, names } = context;
  const aggregatorName = names.next("aggregator");
  const aggregator = replicaObjects({ job, type: "aggregator", name: aggregatorName, template: aggregatorTemplate, settings });
  create(context, aggregator.pod, aggregator.service);
  const ddpNames = split.map(() => names.next("ddp-learner"));
  const master = `${ddpNames[0] ?? ""}.${namespace}`;
  split.forEach((gpus, index) => {
    const name = ddpNames[index] ?? "";
    const learner = replicaObjects({ job, type: "ddp-learner", name, template: learnerTemplate, settings, env: ddpEnv(split, index, master), resources: resourcesOf(group, gpus) });
    const ddp = asDdpLearner(learner, gpus, aggregatorName);
    create(context, ddp.pod, ddp.service);
  });
  return replicaUrl(aggregatorName, namespace, aggregator.port);
}

/** The learners' layout on this cluster's nodes. */
function layoutOf(request: ApiRequest, learners: ReplicaResources): LearnerLayout {
  const perNode = commonGpuCount((request.related[NODE_KEY] ?? []).map(nodeGpus));
  return layoutLearners(learners.replicas, learners.gpus, perNode);
}

/** Everything a POST creates, or why it cannot. */
function build(request: ApiRequest, settings: ControllerSettings, body: ReplicasBody): Outcome<{ set: ReplicaSet; actions: Action[] }> {
  const coordinated = findCoordinator(request, body.namespace, body.coordinator);
  if (!coordinated.ok) return coordinated;
  const found = findJob(request, coordinated.value);
  if (!found.ok) return found;
  const job = found.value;
  const jobName = job.metadata.name ?? "";
  const collectorTemplate = job.spec.collector?.template;
  const learnerTemplate = job.spec.learner?.template;
  if (body.collectors.replicas > 0 && !collectorTemplate) return failure(400, `collectors.replicas: NerveXJob ${body.namespace}/${jobName} has no collector template`);
  if (body.learners.replicas > 0 && !learnerTemplate) return failure(400, `learners.replicas: NerveXJob ${body.namespace}/${jobName} has no learner template`);
  const layout = layoutOf(request, body.learners);
  const ddpCount = layout.aggregators.reduce((sum, split) => sum + split.length, 0);
  const pods = body.collectors.replicas + layout.learners + layout.aggregators.length + ddpCount;
  if (pods > MAX_CREATED_PODS) return failure(400, `learners.gpus: the request would create ${pods} pods, more than ${MAX_CREATED_PODS}`);
  // Only learners with more than one GPU need the AggregatorConfig (upstream required it for every POST).
  let aggregatorTemplate: PodTemplate | undefined;
  if (layout.aggregators.length > 0) {
    const config = findAggregatorConfig(request);
    if (!config.ok) return config;
    aggregatorTemplate = config.value.spec.aggregator.template;
  }
  const existing = [...relatedIn(request, POD_KEY, body.namespace), ...relatedIn(request, SERVICE_KEY, body.namespace)];
  const jobUid = job.metadata.uid ?? "";
  const ours = existing.filter((o) => madeBy(o, request.id, jobUid));
  // The first attempt's own objects are not taken: the same names come out in the same order.
  const taken = existing.filter((o) => !madeBy(o, request.id, jobUid)).map((o) => o.metadata.name ?? "");
  const built: Built = { actions: [], collectors: [], learners: [] };
  const made = new Set(ours.map(madeKey));
  const context: Context = { job, requestId: request.id, made, namespace: body.namespace, settings, names: nameSource(request.id, jobName, taken), built };
  if (collectorTemplate) {
    for (let i = 0; i < body.collectors.replicas; i += 1) built.collectors.push(plainReplica(context, "collector", collectorTemplate, resourcesOf(body.collectors)));
  }
  if (learnerTemplate) {
    for (let i = 0; i < layout.learners; i += 1) built.learners.push(plainReplica(context, "learner", learnerTemplate, resourcesOf(body.learners)));
    if (aggregatorTemplate) {
      for (const split of layout.aggregators) built.learners.push(aggregatorGroup(context, aggregatorTemplate, learnerTemplate, split, body.learners));
    }
  }
  const set: ReplicaSet = { namespace: body.namespace, coordinator: body.coordinator, collectors: built.collectors, learners: built.learners };
  return success({ set, actions: built.actions });
}

/** Answers `POST /v1alpha1/replicas`. */
export function postReplicas(request: ApiRequest, settings: ControllerSettings): ApiAnswer {
  const body = parseBody(request.body, request.query, ReplicasBody);
  if (!body.ok) return failedAnswer(body.failure);
  const built = build(request, settings, body.value);
  if (!built.ok) return failedAnswer(built.failure);
  return changeAnswer(CREATE_MESSAGE, CREATE_FAILED_MESSAGE, built.value.set, built.value.actions);
}
