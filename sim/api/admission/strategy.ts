/**
 * The two steps the kind's own strategy takes in the chain: Defaulting (defaults and
 * PrepareForCreate, or an update's defaults) and Validation (metadata with the kind's
 * name rule, then the kind's rules; one 422 Invalid lists every cause).
 */
import type { KubeObject } from "../../../protocol/index.ts";
import { invalid, type Cause } from "../../pipeline/errors.ts";
import { validateMetadata } from "../../pipeline/validation.ts";
import type { Registry } from "../../registry/registry.ts";
import type { Kind } from "../kinds/kind.ts";
import type { AdmissionStep } from "./step.ts";

/** The kind's defaults: on create, and on updates of the main resource and its status (a finalize write has none). */
export const defaulting: AdmissionStep = {
  name: "Defaulting",
  admit: (draft, write) => {
    if (write.operation === "CREATE") return write.kind.defaultCreate(draft, write);
    return write.subresource === "finalize" ? draft : write.kind.defaultUpdate(draft, write);
  },
};

/** The field errors of a write to the main resource of `kind` (`old`: the stored object of an update). */
export function fieldErrors(kind: Kind, object: KubeObject, old: KubeObject | undefined, registry: Registry): Cause[] {
  const metadata = validateMetadata(object, kind.nameRule, old);
  const own = kind.validate(object, old, registry);
  return own.length === 0 ? metadata : [...metadata, ...own];
}

/** Validation: a subresource write is checked by the kind's subresource rules only (metadata and spec do not change). */
export const validation: AdmissionStep = {
  name: "Validation",
  admit: (draft, write) => {
    const old = write.oldObject ?? undefined;
    const registry = write.server.registry;
    const causes = write.subresource !== "" && old ? write.kind.validateSubresource(draft, old, registry) : fieldErrors(write.kind, draft, old, registry);
    if (causes.length > 0) throw invalid(write.resource.kind, write.resource.group, draft.metadata.name ?? "", causes);
    return draft;
  },
};
