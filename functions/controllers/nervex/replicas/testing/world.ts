/**
 * Test support for the replicas API: a job from upstream's mock manifest, its pods as the
 * operator and this API build them (with the uid and creation time the API server adds),
 * the AggregatorConfig, nodes, and requests built as the relay forwards them.
 */
import { ApiRequest, ApiResponse, type KubeObject } from "../../../../../protocol/index.ts";
import { NERVEX_API_VERSION } from "../../group.ts";
import type { ReplicaType } from "../../labels.ts";
import { coordinatorName } from "../../names.ts";
import { replicaObjects } from "../../replica-pod.ts";
import { NerveXJob } from "../../schema.ts";
import { asDdpLearner, ddpEnv } from "../ddp.ts";
import { handleReplicas } from "../api.ts";
import { AGGREGATOR_CONFIG_KEY, JOB_KEY, NODE_KEY, POD_KEY, SERVICE_KEY } from "../lookup.ts";

export const settings = { apiAddress: "edgeloop-relay.edgeloop-system:8080" };
export const NOW = "2026-11-23T12:00:00Z";

/**
 * Upstream's mock manifests (`../../fixtures/nervex-mock-nervexjob.yaml` and
 * `nervex-mock-agconfig.yaml`) as data, so this module needs no file system (it is
 * type-checked for workerd with the rest of functions/); `fixtures.test.ts` checks they
 * still match the files.
 */
function mockContainer(args: string, ports: boolean, pull = "Always"): Record<string, unknown> {
  return {
    name: "nervex-container",
    image: "registry.sensetime.com/cloudnative4ai/nervex-mock:v0.0.5",
    imagePullPolicy: pull,
    command: ["/bin/bash", "-c"],
    args: [args],
    ...(ports ? { ports: [{ name: "nervex-port", containerPort: 80 }] } : {}),
  };
}

/** `nervex-mock-nervexjob.yaml`, as parsed. */
export const MOCK_JOB_MANIFEST: Record<string, unknown> = {
  apiVersion: "nervex.sensetime.com/v1alpha1",
  kind: "NerveXJob",
  metadata: { name: "nervexjob-example" },
  spec: {
    group: "xxx",
    priorityClassName: "",
    cleanPodPolicy: "Running",
    coordinator: { template: { spec: { containers: [mockContainer("python3 -u main.py coordinator -l $HOSTNAME -p $COORDINATOR_PORT", false)] } } },
    collector: {
      template: { spec: { containers: [mockContainer("until ping -c 1 $HOSTNAME.default ; do sleep 1 ; done ; sleep 10; python3 -u main.py collector -l $HOSTNAME.default -p $COLLECTOR_PORT", true)] } },
    },
    learner: {
      template: { spec: { containers: [mockContainer("until ping -c 1 $HOSTNAME.default ; do sleep 1 ; done ; sleep 10; python3 -u main.py learner -l $HOSTNAME.default -p $LEARNER_PORT", true)] } },
    },
  },
};

/** `nervex-mock-agconfig.yaml`, as parsed. */
export const MOCK_AGCONFIG_MANIFEST: Record<string, unknown> = {
  apiVersion: "nervex.sensetime.com/v1alpha1",
  kind: "AggregatorConfig",
  metadata: { name: "aggregator-config", namespace: "nervex-system" },
  spec: {
    aggregator: {
      template: {
        spec: {
          containers: [
            mockContainer(
              "until ping -c 1 $HOSTNAME.default ; do sleep 1 ; done ; sleep 5; python3 -u main.py aggregator -sl $HOSTNAME.default -sp $AGGREGATOR_PORT -sl $HOSTNAME.default -ml $HOSTNAME.default -mp 81",
              true,
              "IfNotPresent",
            ),
          ],
        },
      },
    },
  },
};

/** The mock NerveXJob, named and placed as asked. */
export function mockJob(name = "nervexjob-example", namespace = "team-a", uid = `${name}-uid`): NerveXJob {
  const job = NerveXJob.parse(structuredClone(MOCK_JOB_MANIFEST));
  return { ...job, metadata: { ...job.metadata, name, namespace, uid } };
}

/** The mock AggregatorConfig in `nervex-system`. */
export function aggregatorConfig(): KubeObject {
  const config = structuredClone(MOCK_AGCONFIG_MANIFEST) as KubeObject;
  return { ...config, metadata: { ...config.metadata, uid: "agconfig-uid" } };
}

/** A node with `gpus` allocatable GPUs (none listed when 0). */
export function node(name: string, gpus: number): KubeObject {
  return { apiVersion: "v1", kind: "Node", metadata: { name, uid: `${name}-uid` }, status: { allocatable: { cpu: "64", ...(gpus > 0 ? { "nvidia.com/gpu": String(gpus) } : {}) } } };
}

/** Upstream's example nodes: 8, 8, 0 and 4 GPUs. */
export const NODES = [node("n1", 8), node("n2", 8), node("n3", 0), node("n4", 4)];

/** What exists of a replica: its pod and Service as the API server holds them. */
export interface Existing {
  readonly pod: KubeObject;
  readonly service: KubeObject;
}

function stored(object: KubeObject, created: string): KubeObject {
  return { ...object, metadata: { ...object.metadata, uid: `${object.metadata.name ?? ""}-uid`, resourceVersion: "7", creationTimestamp: created } };
}

/** A replica of `job` as it exists in the cluster (with a uid, a creation time and a node). */
export function existing(job: NerveXJob, type: ReplicaType, name: string, created = "2026-11-23T10:00:00Z", extra: { aggregator?: string; gpus?: number } = {}): Existing {
  const template =
    type === "coordinator" ? job.spec.coordinator.template
    : type === "collector" ? job.spec.collector?.template
    : type === "aggregator" ? (aggregatorConfig()["spec"] as { aggregator: { template: NerveXJob["spec"]["coordinator"]["template"] } }).aggregator.template
    : job.spec.learner?.template;
  if (!template) throw new Error(`job has no ${type} template`);
  const podName = type === "coordinator" ? coordinatorName(job.metadata.name ?? "") : name;
  const env = type === "ddp-learner" ? ddpEnv([extra.gpus ?? 1], 0, `${podName}.${job.metadata.namespace ?? ""}`) : [];
  const built = replicaObjects({ job, type, name: podName, template, settings, env });
  const objects = type === "ddp-learner" ? asDdpLearner(built, extra.gpus ?? 1, extra.aggregator ?? "") : built;
  const pod = stored(objects.pod, created);
  return {
    pod: { ...pod, spec: { ...(pod["spec"] as object), nodeName: "n1" }, status: { phase: "Running", podIP: "10.0.0.9" } },
    service: { ...stored(objects.service, created), spec: { ...(objects.service["spec"] as object), clusterIP: "None", clusterIPs: ["None"] } },
  };
}

/** The related map of a request from the objects the relay would attach. */
export function related(objects: { pods?: readonly Existing[]; jobs?: readonly NerveXJob[]; aggregatorConfig?: boolean; nodes?: readonly KubeObject[] }): Record<string, KubeObject[]> {
  return {
    [POD_KEY]: (objects.pods ?? []).map((e) => e.pod),
    [SERVICE_KEY]: (objects.pods ?? []).map((e) => e.service),
    [JOB_KEY]: [...(objects.jobs ?? [])] as KubeObject[],
    [AGGREGATOR_CONFIG_KEY]: objects.aggregatorConfig === false ? [] : [aggregatorConfig()],
    [NODE_KEY]: [...(objects.nodes ?? NODES)],
  };
}

/** A forwarded request, as `ApiRequest.parse` reads it. */
export function request(input: { method: string; path?: string; query?: Record<string, string>; body?: unknown; id?: string; related?: Record<string, KubeObject[]> }): ApiRequest {
  return ApiRequest.parse({
    id: input.id ?? "req-1",
    method: input.method,
    path: input.path ?? "/v1alpha1/replicas",
    query: input.query ?? {},
    // The client sends JSON text without a Content-Type: the body arrives as a string.
    body: typeof input.body === "string" ? input.body : input.body === undefined ? "" : JSON.stringify(input.body),
    related: input.related ?? {},
    now: NOW,
  });
}

/** Calls the API as the Worker route does, checking the answer against the protocol. */
export function call(req: ApiRequest): ApiResponse {
  return ApiResponse.parse(handleReplicas(req, settings));
}

/** The objects an answer creates, of one kind. */
export function created(answer: ApiResponse, kind = "Pod"): KubeObject[] {
  return answer.actions.flatMap((a) => (a.type === "create" && a.object.kind === kind ? [a.object] : []));
}

/** The names an answer deletes, as `Kind/name`. */
export function deleted(answer: ApiResponse): string[] {
  return answer.actions.flatMap((a) => (a.type === "delete" ? [`${a.target.kind}/${a.target.name}`] : []));
}

/** The envelope of an answer. */
export function envelope(answer: ApiResponse): { success: boolean; code: number; message: string; data: unknown } {
  return answer.body as { success: boolean; code: number; message: string; data: unknown };
}

export { NERVEX_API_VERSION };
