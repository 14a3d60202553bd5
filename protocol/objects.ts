import { z } from "zod";
import { isDns1123Label, isDns1123Subdomain, isQualifiedName, isValidLabelValue } from "./kube/names.ts";

/** An ownerReference as Kubernetes stores it. */
export const OwnerReference = z.object({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  name: z.string().min(1),
  uid: z.string().min(1),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});
export type OwnerReference = z.infer<typeof OwnerReference>;

/** No control character (C0, DEL, C1) and no lone UTF-16 surrogate: no API server stores these in a name. */
function printable(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || (code >= 0xdc00 && code <= 0xdfff)) return false;
    if (code >= 0xd800 && code <= 0xdbff) {
      const low = text.charCodeAt(i + 1);
      if (!(low >= 0xdc00 && low <= 0xdfff)) return false;
      i += 1;
    }
  }
  return true;
}

/**
 * An object name as every API server accepts it, whatever the kind: at most 253
 * characters, printable, and a path segment (no `/` or `%`, not `.` or `..`). Most kinds
 * are stricter (DNS-1123), but RBAC names such as `system:node` are not, and this
 * schema reads every kind.
 */
export const ObjectName = z
  .string()
  .max(253)
  .refine(printable, "name holds a control character or a lone surrogate")
  .refine((name) => !/[/%]/.test(name) && name !== "." && name !== "..", "name must be a path segment (no / or %, not . or ..)");

/** A namespace name: a DNS-1123 label (at most 63 characters of a-z, 0-9 and `-`, alphanumeric at both ends). */
export const NamespaceName = z.string().refine((name) => isDns1123Label(name).length === 0, "namespace must be a DNS-1123 label");

/** A label or annotation key: `[prefix/]name`, prefix a DNS-1123 subdomain (≤ 253), name ≤ 63 of [A-Za-z0-9-_.]. */
export const QualifiedName = z.string().refine((key) => isQualifiedName(key).length === 0, "key must be [DNS-1123 subdomain/]name, name at most 63 of [A-Za-z0-9-_.] alphanumeric at both ends");

/** A label value: empty, or at most 63 of [A-Za-z0-9-_.] alphanumeric at both ends. */
export const LabelValue = z.string().refine((value) => isValidLabelValue(value).length === 0, "label value must be at most 63 of [A-Za-z0-9-_.] alphanumeric at both ends");

/**
 * The metadata fields edgeloop reads; everything else is kept as it came. Names,
 * namespaces and label keys and values are held to what an API server would accept, so
 * nothing unstorable reaches a reconciler or a plan.
 */
export const ObjectMeta = z
  .object({
    name: ObjectName.optional(),
    generateName: ObjectName.optional(),
    namespace: NamespaceName.optional(),
    uid: z.string().optional(),
    resourceVersion: z.string().optional(),
    generation: z.number().int().optional(),
    creationTimestamp: z.string().optional(),
    deletionTimestamp: z.string().optional(),
    deletionGracePeriodSeconds: z.number().int().optional(),
    labels: z.record(QualifiedName, LabelValue).optional(),
    annotations: z.record(QualifiedName, z.string()).optional(),
    ownerReferences: z.array(OwnerReference).optional(),
    finalizers: z.array(z.string()).optional(),
  })
  .loose();
export type ObjectMeta = z.infer<typeof ObjectMeta>;

/** Any Kubernetes object: apiVersion, kind and metadata are checked, the rest passes through. */
export const KubeObject = z
  .object({
    apiVersion: z.string().min(1),
    kind: z.string().min(1),
    metadata: ObjectMeta,
  })
  .loose();
export type KubeObject = z.infer<typeof KubeObject>;

/** Names one object; `uid` pins it to one incarnation. */
export const ObjectRef = z.object({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  namespace: NamespaceName.min(1).optional(),
  name: ObjectName.min(1),
  uid: z.string().min(1).optional(),
});
export type ObjectRef = z.infer<typeof ObjectRef>;

/** A group/version/kind, as used in the manifest. */
export const TypeRef = z.object({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
});
export type TypeRef = z.infer<typeof TypeRef>;

/**
 * The key children/related maps use for a kind: `Kind.apiVersion`,
 * e.g. `Pod.v1`, `Deployment.apps/v1`, `Widget.example.com/v1alpha1`.
 */
export const KindKey = z.string().regex(/^[A-Z][A-Za-z0-9]*\.[a-z0-9.-]*\/?[a-z0-9]+$/, "expected Kind.apiVersion, e.g. Pod.v1");
export type KindKey = z.infer<typeof KindKey>;

/** Builds the `Kind.apiVersion` key of a type. */
export function kindKey(type: TypeRef): string {
  return `${type.kind}.${type.apiVersion}`;
}

/** Whether `key` is `namespace/name` or `name`, each part a DNS subdomain (the names the API server accepts). */
function isObjectKey(key: string): boolean {
  const parts = key.split("/");
  return parts.length <= 2 && parts.every((part) => isDns1123Subdomain(part).length === 0);
}

/** `namespace/name` for namespaced objects, `name` for cluster-scoped ones. */
export const ObjectKey = z.string().refine(isObjectKey, "expected namespace/name or name");
export type ObjectKey = z.infer<typeof ObjectKey>;

/** The key of an object: `namespace/name`, or `name` when cluster-scoped. */
export function objectKey(meta: { namespace?: string | undefined; name?: string | undefined }): string {
  return meta.namespace ? `${meta.namespace}/${meta.name ?? ""}` : (meta.name ?? "");
}

/** Splits a key into namespace (undefined for cluster-scoped) and name. */
export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const slash = key.indexOf("/");
  return slash < 0 ? { namespace: undefined, name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** A reference to an object, taken from the object itself. */
export function refOf(object: KubeObject): ObjectRef {
  const ref: ObjectRef = { apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name ?? "" };
  if (object.metadata.namespace) ref.namespace = object.metadata.namespace;
  if (object.metadata.uid) ref.uid = object.metadata.uid;
  return ref;
}

/** A metav1.LabelSelector. */
export const LabelSelector = z.object({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z
    .array(z.object({ key: z.string().min(1), operator: z.enum(["In", "NotIn", "Exists", "DoesNotExist"]), values: z.array(z.string()).optional() }))
    .optional(),
});
export type LabelSelector = z.infer<typeof LabelSelector>;
