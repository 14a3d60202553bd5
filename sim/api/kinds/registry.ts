/**
 * The kind registry: every built-in kind the sim serves, in the order discovery lists
 * them, and the kind of every custom resource. Kinds with a strategy of their own live in
 * their files beside this one; the kinds the common strategy serves are declared here.
 */
import { storageKey, type ResourceType } from "../../registry/resource.ts";
import { defaultEvent } from "../../pipeline/defaults.ts";
import { pathSegmentName } from "../../../protocol/kube/names.ts";
import { CONFIG_MAP, SECRET } from "./config.ts";
import { CRD } from "./crds.ts";
import { CUSTOM_RESOURCE } from "./custom-resources.ts";
import { JOB } from "./jobs.ts";
import { builtinKind, type BuiltinKind, type Kind } from "./kind.ts";
import { NAMESPACE } from "./namespaces.ts";
import { POD } from "./pods.ts";
import { PRIORITY_CLASS } from "./priority-classes.ts";
import { POD_GROUP, WORKLOAD } from "./scheduling-groups.ts";
import { SERVICE } from "./services.ts";
import { DAEMON_SET, DEPLOYMENT, REPLICA_SET, REPLICATION_CONTROLLER, STATEFUL_SET } from "./workloads.ts";

const EVENT_FIELDS = [
  "involvedObject.kind",
  "involvedObject.namespace",
  "involvedObject.name",
  "involvedObject.uid",
  "involvedObject.apiVersion",
  "involvedObject.resourceVersion",
  "involvedObject.fieldPath",
  "reason",
  "reportingComponent",
  "source",
  "type",
];

const RBAC = { group: "rbac.authorization.k8s.io", version: "v1" };
/** RBAC objects are named by path segments (`system:aggregate-to-view`). */
const RBAC_STRATEGY = { nameRule: pathSegmentName };
/** Admission webhooks are not called for the webhook configurations themselves. */
const WEBHOOK_CONFIGURATION = { exemptFromWebhooks: true } as const;

/** The built-in kinds (issue 3, item 4). */
export const BUILTIN_KINDS: readonly BuiltinKind[] = [
  NAMESPACE,
  POD,
  SERVICE,
  builtinKind({ group: "", version: "v1", kind: "Endpoints", plural: "endpoints", namespaced: true, shortNames: ["ep"] }),
  // A node's status is its kubelet's from the start: it registers with it.
  builtinKind({ group: "", version: "v1", kind: "Node", plural: "nodes", namespaced: false, shortNames: ["no"], status: true, fields: ["spec.unschedulable"] }, { defaultCreate: (node) => node }),
  // core/v1 Events: their metadata is not validated.
  builtinKind({ group: "", version: "v1", kind: "Event", plural: "events", namespaced: true, shortNames: ["ev"], fields: EVENT_FIELDS }, { nameRule: undefined, defaultCreate: defaultEvent }),
  SECRET,
  CONFIG_MAP,
  builtinKind({ group: "", version: "v1", kind: "ServiceAccount", plural: "serviceaccounts", namespaced: true, shortNames: ["sa"] }, { returnsDeletedObject: true }),
  DEPLOYMENT,
  REPLICA_SET,
  DAEMON_SET,
  STATEFUL_SET,
  REPLICATION_CONTROLLER,
  builtinKind({ group: "apps", version: "v1", kind: "ControllerRevision", plural: "controllerrevisions", namespaced: true }),
  JOB,
  builtinKind({ group: "discovery.k8s.io", version: "v1", kind: "EndpointSlice", plural: "endpointslices", namespaced: true, generation: true }),
  builtinKind({ group: "autoscaling", version: "v2", kind: "HorizontalPodAutoscaler", plural: "horizontalpodautoscalers", namespaced: true, shortNames: ["hpa"], categories: ["all"], status: true, generation: true }),
  builtinKind({ group: "coordination.k8s.io", version: "v1", kind: "Lease", plural: "leases", namespaced: true }),
  // Stored, not enforced (the sim has no pod network): install-relay renders one (issue 28).
  builtinKind({ group: "networking.k8s.io", version: "v1", kind: "NetworkPolicy", plural: "networkpolicies", namespaced: true, shortNames: ["netpol"], generation: true }),
  PRIORITY_CLASS,
  WORKLOAD,
  POD_GROUP,
  builtinKind({ ...RBAC, kind: "Role", plural: "roles", namespaced: true }, RBAC_STRATEGY),
  builtinKind({ ...RBAC, kind: "RoleBinding", plural: "rolebindings", namespaced: true }, RBAC_STRATEGY),
  builtinKind({ ...RBAC, kind: "ClusterRole", plural: "clusterroles", namespaced: false }, RBAC_STRATEGY),
  builtinKind({ ...RBAC, kind: "ClusterRoleBinding", plural: "clusterrolebindings", namespaced: false }, RBAC_STRATEGY),
  CRD,
  builtinKind({ group: "admissionregistration.k8s.io", version: "v1", kind: "MutatingWebhookConfiguration", plural: "mutatingwebhookconfigurations", namespaced: false, categories: ["api-extensions"], generation: true }, WEBHOOK_CONFIGURATION),
  builtinKind({ group: "admissionregistration.k8s.io", version: "v1", kind: "ValidatingWebhookConfiguration", plural: "validatingwebhookconfigurations", namespaced: false, categories: ["api-extensions"], generation: true }, WEBHOOK_CONFIGURATION),
];

const BY_STORAGE_KEY: ReadonlyMap<string, Kind> = new Map(BUILTIN_KINDS.map((kind) => [storageKey(kind.resource), kind]));

/** The kind of a served resource: a CRD's objects are custom resources; the rest are built in. */
export function kindOf(resource: ResourceType): Kind {
  if (resource.crd) return CUSTOM_RESOURCE;
  const kind = BY_STORAGE_KEY.get(storageKey(resource));
  if (!kind) throw new Error(`no kind is registered for ${storageKey(resource)}`);
  return kind;
}
