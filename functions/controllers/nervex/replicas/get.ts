/**
 * `GET /v1alpha1/replicas`: the replica sets of every coordinator of a namespace (one must
 * be named: `./query.ts`), one coordinator's set (its aggregators listed as learners, not their
 * ddp-learners), an aggregator's ddp-learners, or one replica by name. Terminating pods
 * are left out; unknown names are 404 (upstream answered `name=` with success and no data).
 */
import type { ApiAnswer, ApiRequest, KubeObject } from "../../../../protocol/index.ts";
import { failedAnswer, failure, okAnswer, success, type Outcome } from "./envelope.ts";
import { allCoordinators, coordinatorOf, ddpLearnersOf, findCoordinator, jobRefOf, live, podsOfJob, POD_KEY, relatedIn } from "./lookup.ts";
import { parseGetQuery } from "./query.ts";
import { replicaSetOf, type ReplicaSet } from "./replica-set.ts";
import { replicaTypeOf } from "./urls.ts";

/** The message of a successful GET, as upstream's. */
export const GET_MESSAGE = "successfully get replicas";

/** The set a coordinator pod heads: its job's live collectors, learners and aggregators. */
function setOfCoordinator(request: ApiRequest, coordinator: KubeObject): ReplicaSet {
  const namespace = coordinator.metadata.namespace ?? "";
  const job = jobRefOf(coordinator);
  const pods = job ? podsOfJob(request, namespace, job.uid) : [];
  return replicaSetOf(namespace, coordinator.metadata.name ?? "", live(pods, "collector", "learner", "aggregator"));
}

/** The name of the coordinator of the job controlling `pod` ("" when none is seen). */
function coordinatorNameOf(request: ApiRequest, namespace: string, pod: KubeObject): string {
  const job = jobRefOf(pod);
  if (!job) return "";
  return coordinatorOf(podsOfJob(request, namespace, job.uid))?.metadata.name ?? "";
}

/** `?namespace=&aggregator=`: the aggregator's ddp-learners as learners. */
function aggregatorSet(request: ApiRequest, namespace: string, name: string): Outcome<ReplicaSet> {
  const pods = relatedIn(request, POD_KEY, namespace);
  const aggregator = pods.find((pod) => pod.metadata.name === name && replicaTypeOf(pod) === "aggregator");
  const job = aggregator ? jobRefOf(aggregator) : undefined;
  if (!aggregator || !job) return failure(404, `aggregator ${namespace}/${name} not found`);
  return success(replicaSetOf(namespace, coordinatorNameOf(request, namespace, aggregator), ddpLearnersOf(aggregator, job.uid, pods)));
}

/** `?namespace=&name=`: the one replica, in the set of its job's coordinator. */
function namedSet(request: ApiRequest, namespace: string, name: string): Outcome<ReplicaSet> {
  const pod = relatedIn(request, POD_KEY, namespace).find((p) => p.metadata.name === name);
  if (!pod || replicaTypeOf(pod) === undefined || !jobRefOf(pod)) return failure(404, `replica ${namespace}/${name} not found`);
  return success(replicaSetOf(namespace, coordinatorNameOf(request, namespace, pod), [pod]));
}

/** Answers a GET. */
export function getReplicas(request: ApiRequest): ApiAnswer {
  const query = parseGetQuery(request.query);
  if (!query.ok) return failedAnswer(query.failure);
  const asked = query.value;
  switch (asked.kind) {
    case "namespace":
      return okAnswer(
        GET_MESSAGE,
        allCoordinators(request)
          .filter((c) => c.metadata.namespace === asked.namespace)
          .map((c) => setOfCoordinator(request, c)),
      );
    case "coordinator": {
      const found = findCoordinator(request, asked.namespace, asked.coordinator);
      return found.ok ? okAnswer(GET_MESSAGE, setOfCoordinator(request, found.value.coordinator)) : failedAnswer(found.failure);
    }
    case "aggregator": {
      const set = aggregatorSet(request, asked.namespace, asked.aggregator);
      return set.ok ? okAnswer(GET_MESSAGE, set.value) : failedAnswer(set.failure);
    }
    case "name": {
      const set = namedSet(request, asked.namespace, asked.name);
      return set.ok ? okAnswer(GET_MESSAGE, set.value) : failedAnswer(set.failure);
    }
  }
}
