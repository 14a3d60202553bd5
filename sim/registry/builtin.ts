import type { ResourceType } from "./resource.ts";

interface Spec {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  generation?: boolean;
  extra?: string[];
  fields?: string[];
}

function resource(spec: Spec): ResourceType {
  return {
    group: spec.group,
    version: spec.version,
    versions: [spec.version],
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    plural: spec.plural,
    singular: spec.kind.toLowerCase(),
    namespaced: spec.namespaced,
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    statusSubresource: spec.status ?? false,
    generation: spec.generation ?? false,
    extraSubresources: spec.extra ?? [],
    fieldLabels: spec.fields ?? [],
  };
}

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

/** The built-in resources the sim serves (issue 3, item 4). */
export function builtinResources(): ResourceType[] {
  return [
    resource({ group: "", version: "v1", kind: "Namespace", plural: "namespaces", namespaced: false, shortNames: ["ns"], status: true, fields: ["status.phase"], extra: ["finalize"] }),
    resource({
      group: "",
      version: "v1",
      kind: "Pod",
      plural: "pods",
      namespaced: true,
      shortNames: ["po"],
      categories: ["all"],
      status: true,
      extra: ["binding"],
      fields: ["spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"],
    }),
    resource({ group: "", version: "v1", kind: "Service", plural: "services", namespaced: true, shortNames: ["svc"], categories: ["all"], status: true }),
    resource({ group: "", version: "v1", kind: "Endpoints", plural: "endpoints", namespaced: true, shortNames: ["ep"] }),
    resource({ group: "", version: "v1", kind: "Node", plural: "nodes", namespaced: false, shortNames: ["no"], status: true, fields: ["spec.unschedulable"] }),
    resource({ group: "", version: "v1", kind: "Event", plural: "events", namespaced: true, shortNames: ["ev"], fields: EVENT_FIELDS }),
    resource({ group: "", version: "v1", kind: "Secret", plural: "secrets", namespaced: true, fields: ["type"] }),
    resource({ group: "", version: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true, shortNames: ["cm"] }),
    resource({ group: "", version: "v1", kind: "ServiceAccount", plural: "serviceaccounts", namespaced: true, shortNames: ["sa"] }),
    resource({ group: "apps", version: "v1", kind: "Deployment", plural: "deployments", namespaced: true, shortNames: ["deploy"], categories: ["all"], status: true, generation: true, extra: ["scale"] }),
    resource({ group: "apps", version: "v1", kind: "ReplicaSet", plural: "replicasets", namespaced: true, shortNames: ["rs"], categories: ["all"], status: true, generation: true, extra: ["scale"] }),
    resource({ group: "batch", version: "v1", kind: "Job", plural: "jobs", namespaced: true, categories: ["all"], status: true, generation: true }),
    resource({ group: "discovery.k8s.io", version: "v1", kind: "EndpointSlice", plural: "endpointslices", namespaced: true, generation: true }),
    resource({ group: "autoscaling", version: "v2", kind: "HorizontalPodAutoscaler", plural: "horizontalpodautoscalers", namespaced: true, shortNames: ["hpa"], categories: ["all"], status: true, generation: true }),
    resource({ group: "coordination.k8s.io", version: "v1", kind: "Lease", plural: "leases", namespaced: true }),
    resource({ group: "scheduling.k8s.io", version: "v1", kind: "PriorityClass", plural: "priorityclasses", namespaced: false, shortNames: ["pc"] }),
    resource({ group: "rbac.authorization.k8s.io", version: "v1", kind: "Role", plural: "roles", namespaced: true }),
    resource({ group: "rbac.authorization.k8s.io", version: "v1", kind: "RoleBinding", plural: "rolebindings", namespaced: true }),
    resource({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole", plural: "clusterroles", namespaced: false }),
    resource({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRoleBinding", plural: "clusterrolebindings", namespaced: false }),
    resource({ group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", namespaced: false, shortNames: ["crd", "crds"], categories: ["api-extensions"], status: true, generation: true }),
    resource({ group: "admissionregistration.k8s.io", version: "v1", kind: "MutatingWebhookConfiguration", plural: "mutatingwebhookconfigurations", namespaced: false, categories: ["api-extensions"], generation: true }),
    resource({ group: "admissionregistration.k8s.io", version: "v1", kind: "ValidatingWebhookConfiguration", plural: "validatingwebhookconfigurations", namespaced: false, categories: ["api-extensions"], generation: true }),
  ];
}
