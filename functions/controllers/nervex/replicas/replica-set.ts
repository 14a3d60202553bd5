/** The replica set the API answers: a coordinator and the URLs of its collectors and learners. */
import type { KubeObject } from "../../../../protocol/index.ts";
import { replicaTypeOf, urlsOf } from "./urls.ts";

/** Upstream's `{namespace, coordinator, collectors:[url], learners:[url]}`. */
export interface ReplicaSet {
  readonly namespace: string;
  readonly coordinator: string;
  readonly collectors: string[];
  readonly learners: string[];
}

/**
 * The set of `pods`: collectors' URLs as collectors; learners', aggregators' and
 * ddp-learners' as learners (pass ddp-learners only where they are wanted: a coordinator
 * sees its aggregators, an aggregator its ddp-learners); coordinators are not listed.
 */
export function replicaSetOf(namespace: string, coordinator: string, pods: readonly KubeObject[]): ReplicaSet {
  const collectors: string[] = [];
  const learners: string[] = [];
  for (const pod of pods) {
    const type = replicaTypeOf(pod);
    if (type === "collector") collectors.push(...urlsOf(pod));
    else if (type === "learner" || type === "aggregator" || type === "ddp-learner") learners.push(...urlsOf(pod));
  }
  return { namespace, coordinator, collectors, learners };
}
