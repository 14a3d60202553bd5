/**
 * `DELETE /v1alpha1/replicas`: deletes `collectors.replicas` collectors and
 * `learners.replicas` learners of the coordinator's job (only pods it controls), each pod
 * with its Service. Newest first (`creationTimestamp`, then name, both descending), so the
 * pick is deterministic; plain learners go before aggregators, and an aggregator goes
 * with its ddp-learners. Asking for more than there are deletes what there is. The reply
 * lists the deleted URLs (aggregators' as learners, not their ddp-learners').
 */
import { changeAnswer } from "./change.ts";
import type { Action, ApiAnswer, ApiRequest, KubeObject } from "../../../../protocol/index.ts";
import { parseBody, ReplicasBody } from "./body.ts";
import { failedAnswer } from "./envelope.ts";
import { ddpLearnersOf, findCoordinator, live, POD_KEY, relatedIn } from "./lookup.ts";
import { removeReplica } from "./removal.ts";
import { replicaSetOf } from "./replica-set.ts";
import { replicaTypeOf } from "./urls.ts";

/** The message of a successful DELETE, as upstream's. */
export const DELETE_MESSAGE = "successfully delete replicas";
/** The message a failed delete is answered with (the API server's error is appended). */
export const DELETE_FAILED_MESSAGE = "failed to delete replicas";

/** Newest first: later `creationTimestamp` (RFC 3339 sorts as text), then the later name. */
export function newestFirst(a: KubeObject, b: KubeObject): number {
  const x = `${a.metadata.creationTimestamp ?? ""}\u0000${a.metadata.name ?? ""}`;
  const y = `${b.metadata.creationTimestamp ?? ""}\u0000${b.metadata.name ?? ""}`;
  return x < y ? 1 : x > y ? -1 : 0;
}

/** Answers `DELETE /v1alpha1/replicas`. */
export function deleteReplicas(request: ApiRequest): ApiAnswer {
  const body = parseBody(request.body, request.query, ReplicasBody);
  if (!body.ok) return failedAnswer(body.failure);
  const { namespace, coordinator, collectors, learners } = body.value;
  const found = findCoordinator(request, namespace, coordinator);
  if (!found.ok) return failedAnswer(found.failure);
  const { pods, job } = found.value;
  const chosenCollectors = live(pods, "collector").sort(newestFirst).slice(0, collectors.replicas);
  const learnerPods = [...live(pods, "learner").sort(newestFirst), ...live(pods, "aggregator").sort(newestFirst)];
  const chosenLearners = learnerPods.slice(0, learners.replicas);
  const namespacePods = relatedIn(request, POD_KEY, namespace);
  const actions: Action[] = [];
  for (const pod of [...chosenCollectors, ...chosenLearners]) {
    actions.push(...removeReplica(request, pod));
    const ddpLearners = replicaTypeOf(pod) === "aggregator" ? ddpLearnersOf(pod, job.uid, namespacePods) : [];
    for (const ddp of ddpLearners) actions.push(...removeReplica(request, ddp));
  }
  const set = replicaSetOf(namespace, coordinator, [...chosenCollectors, ...chosenLearners]);
  return changeAnswer(DELETE_MESSAGE, DELETE_FAILED_MESSAGE, set, actions);
}
