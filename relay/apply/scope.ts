/**
 * What a plan may touch: the kinds its controller declares it writes, and, for a
 * namespaced parent or an API request, that one namespace. The relay applies what the
 * Worker answers, and an API's answer can be steered by whoever reaches the front, so a
 * plan is bounded here by the controller's own declaration, never by what it asks for.
 * Pure: the caller resolves kinds to plural resources (see `./guard.ts`).
 */
import { groupOf, type Access, type Action, type ControllerManifest, type TypeRef } from "../../protocol/index.ts";

/** Where a plan may act. */
export interface Scope {
  /** The only namespace actions may touch; `undefined`: any (cluster-scoped parent, events controller, outbox). */
  readonly namespace?: string | undefined;
}

/** The plural resource of a kind, if known. */
export type PluralOf = (type: TypeRef) => string | undefined;

/** The kind an action writes, or `undefined` for the relay's own Events. */
export function actionKind(action: Action): TypeRef | undefined {
  switch (action.type) {
    case "create":
      return { apiVersion: action.object.apiVersion, kind: action.object.kind };
    case "bind":
      return { apiVersion: "v1", kind: "Pod" };
    case "patch":
    case "delete":
    case "status":
      return { apiVersion: action.target.apiVersion, kind: action.target.kind };
    case "event":
      return undefined;
  }
}

/** The namespace an action touches (`undefined`: a cluster-scoped object, or none given). */
export function actionNamespace(action: Action): string | undefined {
  switch (action.type) {
    case "create":
      return action.object.metadata.namespace;
    case "bind":
      return action.pod.namespace;
    default:
      return action.target.namespace;
  }
}

/** The declared resource and the accesses of which any one allows an action (`write` allows each of create, patch and delete). */
function needed(action: Action, plural: string): { resource: string; access: readonly Access[] } | undefined {
  switch (action.type) {
    case "create":
    case "patch":
    case "delete":
      return { resource: plural, access: ["write", action.type] };
    case "status":
      return { resource: plural, access: ["status"] };
    case "bind":
      return { resource: "pods/binding", access: ["create"] };
    case "event":
      return undefined;
  }
}

function declares(controller: ControllerManifest, group: string, resource: string, access: readonly Access[]): boolean {
  return controller.permissions.some((p) => p.group === group && p.resource === resource && p.access.some((a) => access.includes(a)));
}

/** `null` when `controller` may apply `action` in `scope`, else why not. */
export function actionAllowed(action: Action, controller: ControllerManifest, scope: Scope, pluralOf: PluralOf): string | null {
  const namespace = actionNamespace(action);
  if (scope.namespace !== undefined && namespace !== scope.namespace) {
    return `${action.type} outside namespace ${scope.namespace} (${namespace === undefined ? "cluster-scoped or no namespace" : `namespace ${namespace}`})`;
  }
  const kind = actionKind(action);
  if (!kind) return null;
  const plural = pluralOf(kind);
  if (plural === undefined) return `${action.type} of ${kind.kind} (${kind.apiVersion}): unknown resource`;
  const need = needed(action, plural);
  if (!need) return null;
  const group = groupOf(kind.apiVersion);
  if (declares(controller, group, need.resource, need.access)) return null;
  return `${action.type} of ${need.resource}${group ? `.${group}` : ""}: controller ${controller.name} does not declare ${need.access.join(" or ")}`;
}

/** The plurals the manifest entry's watches name, keyed `apiVersion|kind`. */
export function watchedPlurals(controller: ControllerManifest): Map<string, string> {
  return new Map(controller.watches.map((w) => [`${w.apiVersion}|${w.kind}`, w.resource]));
}
