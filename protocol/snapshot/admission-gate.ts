/**
 * Which admission requests the relay forwards to the Worker: those its webhook's
 * `exemptUsers`, `onlyWhen` paths and `forwardWhen` conditions let through. The others are allowed at
 * once, as the webhook would allow them, without the Worker round trip their creator
 * would wait for. Pure over the request and the caches; a webhook's unit test asks it
 * which of its requests reach the webhook.
 */
import { hasKeyAt, holdsValue, type AdmissionRequest, type ForwardCondition, type WebhookSpec } from "../index.ts";
import type { RelatedCaches } from "./caches.ts";
import { relatedObjects } from "./related.ts";

/** Whether `request` goes to the Worker (true), or the relay allows it itself (false). */
export function forwards(spec: Pick<WebhookSpec, "onlyWhen" | "forwardWhen" | "exemptUsers">, request: AdmissionRequest, caches: RelatedCaches): boolean {
  if (spec.exemptUsers && exempt(spec.exemptUsers, request)) return false;
  if (spec.onlyWhen && !spec.onlyWhen.some((path) => holdsValue(request, path))) return false;
  return !spec.forwardWhen || spec.forwardWhen.some((condition) => holds(condition, request, caches));
}

/** Whether the request's user is one of `users` (an exempted writer the webhook must never block). */
function exempt(users: readonly string[], request: AdmissionRequest): boolean {
  const username = request.userInfo?.["username"];
  return typeof username === "string" && users.includes(username);
}

function holds(condition: ForwardCondition, request: AdmissionRequest, caches: RelatedCaches): boolean {
  if ("hasKey" in condition) return hasKeyAt(request, condition.path, condition.hasKey);
  // `namedBy` paths start from the AdmissionRequest, as a webhook's `related` do.
  const found = relatedObjects([condition.found], { namespace: request.namespace, root: request }, caches);
  return Object.values(found).some((objects) => objects.length > 0);
}
