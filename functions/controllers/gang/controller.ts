import { GANG_QUEUE } from "./bindings.ts";
import { GANG_QUEUE_OBJECT_NAME } from "./queue-name.ts";
import type { EventsController } from "../../kit/controller.ts";
import { gangsApi } from "./api/gangs.ts";
import { podGroupResource } from "./podgroup-crd.ts";

/** The component the relay records its Events as (`relay/apply/applier.ts`): the Scheduled Events the queue watches for. */
const RELAY_COMPONENT = "edgeloop-relay";

/**
 * How long a pod's changes gather before a pass: a replacement's deletion, creation and
 * start (about 50 ms apart) are one batch and one pass, not three, and a Job's pods
 * arriving together are placed together; deletions too (a freed place waits no longer).
 */
const POD_BATCH_MILLISECONDS = 100;

/**
 * What a pass reads of a pod (`core/records.ts` parsePod: group labels and `spec.schedulingGroup`, scheduler, node,
 * priority, deadline, phase; `core/resources.ts` podRequests; `core/node-fit.ts`
 * podConstraints): the relay caches every pod of the cluster, and only this of each
 * (ADR 0016). Name, namespace, uid, creation and deletion times and ownerReferences (the
 * root owner a deadline deletes) are always kept.
 */
const POD_FIELDS = [
  "metadata.labels",
  "spec.schedulerName",
  "spec.schedulingGroup",
  "spec.nodeName",
  "spec.priority",
  "spec.activeDeadlineSeconds",
  "spec.nodeSelector",
  "spec.affinity.nodeAffinity",
  "spec.tolerations",
  "spec.containers[].resources",
  "spec.initContainers[].resources",
  "spec.initContainers[].restartPolicy",
  "spec.overhead",
  "status.phase",
];

/** What the queue reads of a Job: its pod template, as a pod (`core/announce.ts`), and whether it is suspended. */
const JOB_FIELDS = [
  "spec.suspend",
  ...POD_FIELDS.filter((field) => field.startsWith("metadata.labels") || field.startsWith("spec.")).map((field) => `spec.template.${field}`),
];

/**
 * Gang scheduling, the Fluxnetes design (ADR 0012): every Pod and Node event goes, in
 * batches, to the one `GangQueue` Durable Object, which keeps the provisional table, the
 * queue, the allocations and the deadlines in SQLite, runs a pass of the pure core
 * (`core/`) and answers the binds (all pods of a group or none), Events and
 * `PodScheduled` conditions. Its alarms (deadlines, arrival timeouts, bind checks) reach
 * the relay through the Outbox. `GET /v1/gangs` shows the queue.
 */
const controller: EventsController = {
  name: "gang",
  delivery: "events",
  watches: [
    // Every pod, of every scheduler: those bound by others count as used.
    { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "self" }, fields: POD_FIELDS, batchMilliseconds: POD_BATCH_MILLISECONDS, batchDeletions: true },
    { apiVersion: "v1", kind: "Node", resource: "nodes", namespaced: false, mapping: { by: "self" } },
    // Jobs announce their group before their pods exist, so a group's place in the queue is its Job's (ADR 0025).
    { apiVersion: "batch/v1", kind: "Job", resource: "jobs", namespaced: true, mapping: { by: "self" }, fields: JOB_FIELDS },
    // The PodGroups that declare groups: their size, timeout and status (the whole object is small).
    { apiVersion: "scheduling.x-k8s.io/v1alpha1", kind: "PodGroup", resource: "podgroups", namespaced: true, mapping: { by: "self" } },
    { apiVersion: "scheduling.k8s.io/v1alpha2", kind: "PodGroup", resource: "podgroups", namespaced: true, mapping: { by: "self" } },
    // The relay's own Scheduled Events (the record of each bind): a check after a group is seen bound records again
    // those that never came (the relay killed between a plan's binds and their Events, an Event the API server lost).
    { apiVersion: "v1", kind: "Event", resource: "events", namespaced: true, mapping: { by: "self" }, fieldSelector: `reason=Scheduled,reportingComponent=${RELAY_COMPONENT}`, fields: ["involvedObject.uid"] },
  ],
  permissions: [
    // A deadline's delete is of the group's root owner, read (`get`) up the controller ownerReferences from a pod:
    // the Job or JobSet, or the pod itself when it has no owner. It never creates or patches a pod.
    { group: "", resource: "pods", access: ["read", "get", "delete", "status"] },
    { group: "", resource: "pods/binding", access: ["create"] },
    { group: "", resource: "nodes", access: ["read"] },
    { group: "batch", resource: "jobs", access: ["read", "get", "delete"] },
    { group: "jobset.x-k8s.io", resource: "jobsets", access: ["get", "delete"] },
    // Read, and their status written back as their own controllers write it (ADR 0026).
    { group: "scheduling.x-k8s.io", resource: "podgroups", access: ["read", "status"] },
    { group: "scheduling.k8s.io", resource: "podgroups", access: ["read", "status"] },
    // Only the relay's own Scheduled Events are watched (the field selector above).
    { group: "", resource: "events", access: ["read"] },
  ],
  resources: [podGroupResource],
  apis: [gangsApi],
  handle: (batch, context) => context.durableObject(GANG_QUEUE, GANG_QUEUE_OBJECT_NAME).apply(batch),
};

export default controller;
