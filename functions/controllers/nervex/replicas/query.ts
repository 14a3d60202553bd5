/**
 * The query of `GET /v1alpha1/replicas`, and what it asks for. Empty parameters count
 * as absent (upstream tests `len(x) == 0`); unknown ones are ignored. When several of
 * `coordinator`, `aggregator` and `name` are given, the first in that order wins (as
 * upstream's branches). `namespace` is required: upstream answered every namespace's sets
 * without one, but DI-engine's coordinator always sends its own (`OperatorServer.get_replicas`),
 * and an unauthenticated call naming none made the relay send every NerveX pod of the
 * cluster to the Worker (issue 28, finding 3).
 */
import { z } from "zod";
import { NamespaceName } from "../../../../protocol/index.ts";
import { failure, success, type Outcome } from "./envelope.ts";
import { describeIssue } from "./issues.ts";

const Name = z.string().max(253, "at most 253 characters").optional();

const ReplicasQuery = z.object({
  namespace: NamespaceName.optional(),
  coordinator: Name,
  aggregator: Name,
  name: Name,
});

/** What a GET asks for. */
export type GetQuery =
  | { readonly kind: "namespace"; readonly namespace: string }
  | { readonly kind: "coordinator"; readonly namespace: string; readonly coordinator: string }
  | { readonly kind: "aggregator"; readonly namespace: string; readonly aggregator: string }
  | { readonly kind: "name"; readonly namespace: string; readonly name: string };

/** The failure message of a GET naming no namespace. */
export const NAMESPACE_REQUIRED = "namespace: required (DI-engine's coordinator always sends it)";

/** Reads a GET's query; no namespace, or a malformed value, is a 400 naming the parameter. */
export function parseGetQuery(query: Readonly<Record<string, string>>): Outcome<GetQuery> {
  const present = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== ""));
  const parsed = ReplicasQuery.safeParse(present);
  if (!parsed.success) return failure(400, describeIssue(parsed.error, "query"));
  const { namespace, coordinator, aggregator, name } = parsed.data;
  const named = coordinator !== undefined ? "coordinator" : aggregator !== undefined ? "aggregator" : name !== undefined ? "name" : undefined;
  if (namespace === undefined) {
    return named === undefined ? failure(400, NAMESPACE_REQUIRED) : failure(400, `namespace: required with ${named}`);
  }
  if (coordinator !== undefined) return success({ kind: "coordinator", namespace, coordinator });
  if (aggregator !== undefined) return success({ kind: "aggregator", namespace, aggregator });
  if (name !== undefined) return success({ kind: "name", namespace, name });
  return success({ kind: "namespace", namespace });
}
