/** Lists one kind in pages, as client-go's reflector does. */
import type { KubernetesListObject, KubernetesObject } from "@kubernetes/client-node";
import type { KubeClient } from "../kube/client.ts";
import type { ObjectTransform } from "./transform.ts";

/** Items per list request: client-go's pager default. */
export const PAGE_SIZE = 500;

/** A list as client-node's ListWatch takes it. */
export type ObjectList = KubernetesListObject<KubernetesObject>;

/**
 * Lists in pages of {@link PAGE_SIZE}: the API server serves a large list without
 * building it whole, and the relay never holds more than one page of response text (a
 * 10,000-pod list at once cost ~20 MB of transient memory). Each page is cut by
 * `transform` as it arrives: the full objects of a 100,000-pod list are never held at once.
 */
export async function listInPages(client: Pick<KubeClient, "request">, path: string, query: Record<string, string | undefined>, transform: ObjectTransform | undefined): Promise<ObjectList> {
  const items: KubernetesObject[] = [];
  let first: ObjectList | undefined;
  let token: string | undefined;
  do {
    const page = (await client.request("GET", path, { query: { ...query, limit: String(PAGE_SIZE), ...(token ? { continue: token } : {}) } })) as ObjectList;
    // Its list metadata only: the first page's 500 whole objects are not held to the end.
    first ??= { ...page, items: [] };
    for (const item of page.items) items.push(transform ? transform.project(item) : item);
    token = page.metadata?._continue ?? (page.metadata as { continue?: string } | undefined)?.continue;
  } while (token);
  return { ...first, items };
}
