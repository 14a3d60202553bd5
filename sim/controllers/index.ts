import type { PausableController, SimController, SimControllerOptions } from "../contract.ts";
import { daemonSetController } from "./daemonset.ts";
import { deploymentController } from "./deployment.ts";
import { endpointsController } from "./endpoints.ts";
import { garbageCollector } from "./gc.ts";
import { jobController } from "./job.ts";
import { kubelet } from "./kubelet.ts";
import { namespaceController } from "./namespace.ts";
import { nodeLifecycle } from "./nodelifecycle.ts";
import { nodeHeartbeats } from "./nodes.ts";
import { replicaSetController, replicationControllerManager } from "./replicaset.ts";
import { scheduler } from "./scheduler.ts";
import { serviceAccountController } from "./serviceaccounts.ts";
import { statefulSetController } from "./statefulset.ts";
import { taintEvictionController } from "./taint-eviction.ts";
import { ttlAfterFinishedController } from "./ttlafterfinished.ts";

/**
 * The sim's built-in controllers, in start order: the garbage collector first so it
 * sees every object from the beginning. `defaultScheduler` is the scheduler among them
 * (passed in by a caller that pauses and resumes it).
 */
export function builtinControllers(options: SimControllerOptions, defaultScheduler: PausableController = scheduler()): SimController[] {
  return [
    garbageCollector(),
    nodeHeartbeats(options),
    nodeLifecycle(options),
    taintEvictionController(),
    defaultScheduler,
    kubelet(),
    replicaSetController(),
    replicationControllerManager(),
    deploymentController(),
    daemonSetController(),
    statefulSetController(),
    jobController(),
    ttlAfterFinishedController(),
    endpointsController(),
    namespaceController(),
    serviceAccountController(),
  ];
}
