/**
 * The objects of every CRD's kind: pruned, defaulted and checked with the schema of the
 * version they are written at; the metadata as every kind's; stored as given (no
 * `omitempty` of their own).
 */
import type { KubeObject } from "../../../protocol/index.ts";
import { applyDefaults, prune, validate, type Schema } from "../../crd/schema.ts";
import type { Json } from "../../patch/merge.ts";
import { withoutStatus } from "../../pipeline/defaults.ts";
import { invalid, type Cause } from "../../pipeline/errors.ts";
import { dnsSubdomainName } from "../../../protocol/kube/names.ts";
import { versionOf } from "../../../protocol/kube/api-version.ts";
import type { Write } from "../write.ts";
import type { Kind } from "./kind.ts";

/** Unknown fields pruned, defaults applied, the schema checked (422 on what it refuses). */
function bySchema(object: KubeObject, write: Write): KubeObject {
  const schema = write.resource.crd?.schemas.get(versionOf(write.apiVersion)) as Schema | undefined;
  if (!schema) return object;
  const pruned = applyDefaults(schema, prune(schema, object as unknown as Json, true)) as unknown as KubeObject;
  const causes = validate(schema, pruned, "").filter((c) => !c.field.startsWith("metadata") && c.field !== "apiVersion" && c.field !== "kind");
  if (causes.length > 0) throw invalid(write.resource.kind, write.resource.group, object.metadata.name ?? "", causes);
  return pruned;
}

const noCauses = (): Cause[] => [];

/** Custom resources. */
export const CUSTOM_RESOURCE: Kind = {
  nameRule: dnsSubdomainName,
  defaultCreate: (object, write) => bySchema(write.resource.statusSubresource ? withoutStatus(object) : object, write),
  keepOnUpdate: (draft) => draft,
  defaultUpdate: bySchema,
  validate: noCauses,
  validateSubresource: noCauses,
  canonicalize: (object) => object,
};
