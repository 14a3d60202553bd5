/**
 * `POST /v1alpha1/replicas/failed`: replaces failed replicas. Each named pod must be a
 * replica of the coordinator's job of the list's kind (collectors: collectors; learners:
 * learners, aggregators or ddp-learners), else 404 (upstream deleted any pod by name). Each
 * is deleted with its Service, then recreated under a new name with the same spec (the
 * node, status and identity left behind; `pod-name`, `KUBERNETES_POD_NAME` and a hostname
 * equal to the old name updated), with a new headless Service. Deletes come first, then
 * creates. The reply lists the new URLs. Every action may be applied twice (deletes of
 * what is gone succeed, creates take AlreadyExists as applied): a retry within the window
 * is sent this answer again (`functions/routes/api.ts`).
 *
 * A recreated ddp-learner keeps its `MASTER_ADDR`: replacing the first ddp-learner of an
 * aggregator (the rendezvous host) leaves the group pointing at the old name, as upstream.
 */
import { changeAnswer } from "./change.ts";
import { type Action, type ApiAnswer, type ApiRequest, type KubeObject } from "../../../../protocol/index.ts";
import { isControlledByUid } from "../../../../protocol/kube/owner.ts";
import { injectEnv } from "../../../kit/container-env.ts";
import { boundedLabelValue } from "../../../kit/names.ts";
import { PodSpec } from "../../../kit/pod.ts";
import { POD_NAME_LABEL, replicaLabels, type ReplicaType } from "../labels.ts";
import { PORT_NAME } from "../ports.ts";
import { FailedBody, parseBody } from "./body.ts";
import { failedAnswer, failure, success, type Outcome } from "./envelope.ts";
import { AGGREGATOR_NAME_LABEL, findCoordinator, findJob, POD_KEY, relatedIn, SERVICE_KEY, type CoordinatedPods } from "./lookup.ts";
import { nameSource, type NameSource } from "./naming.ts";
import { removeReplica } from "./removal.ts";
import type { ReplicaSet } from "./replica-set.ts";
import { GPU_PORT_PREFIX, gpuPortsOf, nervexPortOf, replicaTypeOf, urlsOf } from "./urls.ts";

/** The message of a successful replacement. */
export const RECREATE_MESSAGE = "successfully recreate replicas";
/** The message a failed replacement is answered with (the API server's error is appended). */
export const RECREATE_FAILED_MESSAGE = "failed to recreate replicas";

const COLLECTOR_TYPES: readonly ReplicaType[] = ["collector"];
const LEARNER_TYPES: readonly ReplicaType[] = ["learner", "aggregator", "ddp-learner"];

/** Whether `pod` is the job's: controlled by it, or by one of its pods (upstream's ddp-learners, owned by their aggregator). */
function ofJob(pod: KubeObject, coordinated: CoordinatedPods): boolean {
  return isControlledByUid(pod, coordinated.job.uid) || coordinated.pods.some((owner) => owner.metadata.uid !== undefined && isControlledByUid(pod, owner.metadata.uid));
}

/** The named pods, checked: each a replica of the job of one of `types`; 404 naming the list entry otherwise. */
function namedPods(request: ApiRequest, coordinated: CoordinatedPods, field: string, names: readonly string[], types: readonly ReplicaType[]): Outcome<KubeObject[]> {
  const { namespace } = coordinated;
  const pods = relatedIn(request, POD_KEY, namespace);
  const found: KubeObject[] = [];
  for (const [index, name] of names.entries()) {
    const pod = pods.find((p) => p.metadata.name === name);
    const type = pod ? replicaTypeOf(pod) : undefined;
    if (!pod || type === undefined || !types.includes(type) || !ofJob(pod, coordinated)) {
      return failure(404, `${field}.${index}: ${namespace}/${name} is not a ${field === "collectors" ? "collector" : "learner"} of the job of coordinator ${namespace}/${coordinated.coordinator.metadata.name ?? ""}`);
    }
    if (!found.includes(pod)) found.push(pod);
  }
  return success(found);
}

/** The spec of the replacement: the old one off its node, with its new name. */
function replacementSpec(old: KubeObject, oldName: string, name: string): Outcome<PodSpec> {
  const parsed = PodSpec.safeParse(old["spec"]);
  if (!parsed.success) return failure(500, `pod ${old.metadata.namespace ?? ""}/${oldName} has no usable spec`);
  const { nodeName: _nodeName, ...rest } = parsed.data as PodSpec & { nodeName?: unknown };
  let spec: PodSpec = injectEnv(rest as PodSpec, [{ name: "KUBERNETES_POD_NAME", value: name }]);
  if (spec["hostname"] === oldName) spec = { ...spec, hostname: name };
  return success(spec);
}

/** The headless Service of a replacement: the job's labels for its new name, its NerveX (or GPU) ports. */
function replacementService(pod: KubeObject, jobName: string, type: ReplicaType): KubeObject {
  const name = pod.metadata.name ?? "";
  const aggregator = pod.metadata.labels?.[AGGREGATOR_NAME_LABEL];
  const labels = { ...replicaLabels(jobName, type, name), ...(aggregator !== undefined ? { [AGGREGATOR_NAME_LABEL]: aggregator } : {}) };
  const gpuPorts = type === "ddp-learner" ? gpuPortsOf(pod) : [];
  const ports =
    gpuPorts.length > 0
      ? gpuPorts.map((port, i) => ({ name: `${GPU_PORT_PREFIX}${i}`, protocol: "TCP", port, targetPort: port }))
      : [{ name: PORT_NAME, protocol: "TCP", port: nervexPortOf(pod), targetPort: nervexPortOf(pod) }];
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: pod.metadata.namespace, labels, ownerReferences: (pod.metadata.ownerReferences ?? []).map((ref) => ({ ...ref })) },
    spec: { clusterIP: "None", selector: replicaLabels(jobName, type, name), ports },
  };
}

/** A replacement pod and Service for `old` under a fresh name. */
function replacement(old: KubeObject, jobName: string, names: NameSource): Outcome<{ pod: KubeObject; service: KubeObject }> {
  const type = replicaTypeOf(old) ?? "learner";
  const oldName = old.metadata.name ?? "";
  const name = names.next(type);
  const spec = replacementSpec(old, oldName, name);
  if (!spec.ok) return spec;
  const { labels, annotations, ownerReferences, namespace } = old.metadata;
  const pod: KubeObject = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace,
      labels: { ...labels, [POD_NAME_LABEL]: boundedLabelValue(name) },
      ...(annotations ? { annotations: { ...annotations } } : {}),
      ownerReferences: (ownerReferences ?? []).map((ref) => ({ ...ref })),
    },
    spec: spec.value,
  };
  return success({ pod, service: replacementService(pod, jobName, type) });
}

/** Everything a replacement request does, or why it cannot. */
function build(request: ApiRequest, body: FailedBody): Outcome<{ set: ReplicaSet; actions: Action[] }> {
  const coordinated = findCoordinator(request, body.namespace, body.coordinator);
  if (!coordinated.ok) return coordinated;
  const job = findJob(request, coordinated.value);
  if (!job.ok) return job;
  const collectors = namedPods(request, coordinated.value, "collectors", body.collectors, COLLECTOR_TYPES);
  if (!collectors.ok) return collectors;
  const learners = namedPods(request, coordinated.value, "learners", body.learners, LEARNER_TYPES);
  if (!learners.ok) return learners;
  const jobName = job.value.metadata.name ?? "";
  const taken = [...relatedIn(request, POD_KEY, body.namespace), ...relatedIn(request, SERVICE_KEY, body.namespace)].map((o) => o.metadata.name ?? "");
  const names = nameSource(request.id, jobName, taken);
  const deletes: Action[] = [];
  const creates: Action[] = [];
  const urls = { collectors: [] as string[], learners: [] as string[] };
  for (const [list, pods] of [["collectors", collectors.value], ["learners", learners.value]] as const) {
    for (const old of pods) {
      const next = replacement(old, jobName, names);
      if (!next.ok) return next;
      deletes.push(...removeReplica(request, old));
      // Named from the request's id: a retry sent this answer again finds them made (ifAbsent), not a conflict.
      creates.push({ type: "create", object: next.value.pod, ifAbsent: true }, { type: "create", object: next.value.service, ifAbsent: true });
      urls[list].push(...urlsOf(next.value.pod));
    }
  }
  return success({ set: { namespace: body.namespace, coordinator: body.coordinator, ...urls }, actions: [...deletes, ...creates] });
}

/** Answers `POST /v1alpha1/replicas/failed`. */
export function replaceFailed(request: ApiRequest): ApiAnswer {
  const body = parseBody(request.body, request.query, FailedBody);
  if (!body.ok) return failedAnswer(body.failure);
  const built = build(request, body.value);
  if (!built.ok) return failedAnswer(built.failure);
  return changeAnswer(RECREATE_MESSAGE, RECREATE_FAILED_MESSAGE, built.value.set, built.value.actions);
}
