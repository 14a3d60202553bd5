/**
 * What a controller may do in the cluster, declared beside what it watches: the relay's
 * ClusterRole is built from these declarations alone (`install-relay`), so a controller
 * that does not declare a write cannot get one. Events are the relay's own and always
 * allowed.
 */
import { z } from "zod";
import { splitResource } from "./kube/api-version.ts";
import { isDns1123Subdomain } from "./kube/names.ts";

/**
 * Each access is the verbs the relay sends for it, no more (ADR 0019):
 * - `read`: list, watch (the relay's informers; it reads one object only as below).
 * - `get`: get of one object by name (the relay reads a delete's root owners so).
 * - `write`: create, patch, delete of the object itself (`update` only on `<kind>/finalizers`, for blockOwnerDeletion).
 * - `status`: patch of its `status` subresource only (the relay never reads `/status`).
 * - `create`, `patch`, `delete`: that one verb only (`pods/binding` is created; a
 *   controller that marks Nodes patches them and never creates or deletes one).
 */
export const Access = z.enum(["read", "get", "write", "status", "create", "patch", "delete"]);
export type Access = z.infer<typeof Access>;

/** Whether `path` is a plural resource, or resource/subresource with a lower-case subresource. */
function isResourcePath(path: string): boolean {
  const { resource, subresource } = splitResource(path);
  return isDns1123Subdomain(resource).length === 0 && (path === resource || /^[a-z]+$/.test(subresource));
}

/** What a controller may do to one resource. */
export const Permission = z.object({
  /** The API group: "" for the core group (pods, services), `apps`, `example.com`. */
  group: z.string().refine((group) => group === "" || isDns1123Subdomain(group).length === 0, "expected an API group such as apps, or \"\" for core"),
  /** The plural resource, or resource/subresource (`pods/binding`). */
  resource: z.string().refine(isResourcePath, "expected a plural resource such as pods, or pods/binding"),
  access: z.array(Access).min(1),
});
export type Permission = z.infer<typeof Permission>;

