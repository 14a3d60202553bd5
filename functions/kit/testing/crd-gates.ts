/**
 * The two gates a custom resource manifest passes, for tests: the CRD generated from its
 * zod schema (validated strictly, as kubectl's field validation does) and the zod schema
 * itself, which the reconcile parses with.
 */
import assert from "node:assert/strict";
import type { z } from "zod";
import { openApiSchemaOf } from "../crd/generate.ts";
import type { CustomResource } from "../crd/resource.ts";
import { validateStructural, type Violation } from "../crd/validate.ts";
import { errorFromZod } from "../../../protocol/index.ts";

/** What each gate says: the CRD's violations, and the path of zod's first error (undefined: accepted). */
export interface GateVerdict {
  readonly crd: Violation[];
  readonly zod: string | undefined;
}

/** The resource of `kind` among `resources` (a failed assertion when none). */
export function resourceOf(resources: readonly CustomResource[], kind: string): CustomResource {
  const found = resources.find((r) => r.kind === kind);
  assert.ok(found, `resource ${kind}`);
  return found;
}

/** What both gates say about `manifest` as a `kind` of `resources`. */
export function gateVerdict(resources: readonly CustomResource[], kind: string, manifest: Record<string, unknown>): GateVerdict {
  const resource = resourceOf(resources, kind);
  const crd = validateStructural(openApiSchemaOf(resource), manifest, { unknownFields: "reject" });
  const parsed = (resource.spec as z.ZodType).safeParse(manifest["spec"]);
  return { crd, zod: parsed.success ? undefined : errorFromZod(parsed.error, "spec").error.path };
}
