/**
 * The NamespaceLifecycle admission plugin: a namespaced object is created only in a
 * namespace that exists (404) and is not terminating (403); the immortal namespaces are
 * never deleted (403).
 */
import type { KubeObject } from "../../../protocol/index.ts";
import type { ApiError } from "../../contract.ts";
import { forbidden, notFound, qualified } from "../../pipeline/errors.ts";
import type { ResourceType } from "../../registry/resource.ts";
import { asObj, type Obj } from "../objects.ts";
import type { AdmissionStep } from "./step.ts";

/** The namespaces NamespaceLifecycle refuses to delete. */
const IMMORTAL_NAMESPACES: readonly string[] = ["default", "kube-system", "kube-public"];

const NAMESPACES = { group: "", plural: "namespaces", kind: "Namespace" };

/** Whether a namespace is terminating (the phase NamespaceLifecycle looks at). */
function terminating(namespace: KubeObject): boolean {
  return asObj((namespace as Obj).status).phase === "Terminating" || Boolean(namespace.metadata.deletionTimestamp);
}

/** 403 for deleting default, kube-system or kube-public. */
function immortalError(name: string): ApiError {
  return forbidden(`${qualified(NAMESPACES)} "${name}" is forbidden: this namespace may not be deleted`, { name, group: "", kind: NAMESPACES.plural });
}

/** The name NamespaceLifecycle reports before name generation: the name, else the generateName, else "Unknown". */
function admissionName(object: KubeObject | null): string {
  return object?.metadata.name || object?.metadata.generateName || "Unknown";
}

/** 403 for creating in a terminating namespace, with the NamespaceTerminating cause. */
function terminatingError(resource: Pick<ResourceType, "group" | "plural">, object: KubeObject | null, namespace: string): ApiError {
  const name = admissionName(object);
  return forbidden(`${qualified(resource)} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`, {
    name,
    group: resource.group,
    kind: resource.plural,
    causes: [{ reason: "NamespaceTerminating", message: `namespace ${namespace} is being terminated`, field: "metadata.namespace" }],
  });
}

/** NamespaceLifecycle. */
export const namespaceLifecycle: AdmissionStep = {
  name: "NamespaceLifecycle",
  admit: (draft, write) => {
    if (write.operation !== "CREATE" || write.namespace === undefined) return draft;
    const namespace = write.server.store.get("/namespaces", undefined, write.namespace);
    if (!namespace) throw notFound(NAMESPACES, write.namespace);
    if (terminating(namespace.object)) throw terminatingError(write.resource, write.body, write.namespace);
    return draft;
  },
  admitDelete: (write) => {
    if (write.resource.group === "" && write.resource.kind === "Namespace" && IMMORTAL_NAMESPACES.includes(write.name)) throw immortalError(write.name);
  },
};
