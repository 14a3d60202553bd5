/** Waits on one object of a cluster: there (as expected), or gone. */
import { waitFor } from "../../cli/wait.ts";
import type { KubeObject, TypeRef } from "../../protocol/index.ts";
import type { TestCluster } from "./http-cluster.ts";

/** Where a wait reads an object: the sim's in-process API or HTTP to a real API server. */
type Finder = Pick<TestCluster, "find">;

/** Waits until the object exists and satisfies `ok`; a timeout shows the object as last read. */
export async function waitForObject(cluster: Finder, type: TypeRef, namespace: string | undefined, name: string, ok: (o: KubeObject) => boolean = () => true, timeoutMs = 15_000): Promise<KubeObject> {
  return waitFor(`${type.kind} ${name}`, () => cluster.find(type, namespace, name), (found): found is KubeObject => found !== undefined && ok(found), { timeoutMs, describe: describeObject });
}

/** An object as a timeout message shows it: absent, or what changes as it is worked on (not its managedFields), cut short. */
function describeObject(object: KubeObject | undefined): string {
  if (object === undefined) return "absent";
  const { managedFields: _managedFields, ...metadata } = object.metadata as KubeObject["metadata"] & { managedFields?: unknown };
  const text = JSON.stringify({ ...object, metadata });
  return text.length > 800 ? `${text.slice(0, 800)}…` : text;
}

/** Waits until no object of `name` exists. */
export async function waitForGone(cluster: Finder, type: TypeRef, namespace: string | undefined, name: string, timeoutMs = 15_000): Promise<void> {
  await waitFor(`${type.kind} ${name} to be gone`, () => cluster.find(type, namespace, name), (found) => found === undefined, { timeoutMs });
}

/** Pods as a timeout message shows them: `name (phase)`, comma-separated. */
export function describePods(pods: readonly { readonly metadata?: { readonly name?: string }; readonly status?: { readonly phase?: string } }[]): string {
  return `[${pods.map((pod) => `${pod.metadata?.name ?? ""} (${pod.status?.phase ?? "no phase"})`).join(", ")}]`;
}
