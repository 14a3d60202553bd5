/**
 * The sim's in-process `Cluster` contract (get/find/list/create/update/patch/delete/bind)
 * over HTTP against any API server, so that an end-to-end test reads and writes the real
 * control plane exactly as it does the sim; errors are the sim's `ApiError` (code, reason,
 * message, details from the Status body), so assertions on them hold on both.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { StatusError, type KubeObject, type TypeRef } from "../../protocol/index.ts";
import { KubeClient } from "../../relay/kube/client.ts";
import { http1Only } from "../../relay/kube/http1.ts";
import { ApiError, type Cluster, type DeleteOptions, type ListOptions, type ObjectList, type PatchType, type SubresourceOptions } from "../../sim/contract.ts";

/** The part of the sim's Cluster an end-to-end test uses, on either target. */
export type TestCluster = Pick<Cluster, "get" | "find" | "list" | "create" | "update" | "patch" | "delete" | "bind">;

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

/** A TestCluster on the API server of `kc`. */
export class HttpCluster implements TestCluster {
  readonly #client: KubeClient;

  constructor(kc: KubeConfig) {
    // No retries after Retry-After: a test wants to see what the server said.
    this.#client = new KubeClient(http1Only(kc), { retryAfterRetries: 0 });
  }

  async get(type: TypeRef, namespace: string | undefined, name: string): Promise<KubeObject> {
    return this.#call(async () => (await this.#client.request("GET", await this.#client.path(type, namespace, name))) as KubeObject);
  }

  async find(type: TypeRef, namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
    try {
      return await this.get(type, namespace, name);
    } catch (error) {
      if (error instanceof ApiError && error.code === 404) return undefined;
      throw error;
    }
  }

  async list(type: TypeRef, options: ListOptions = {}): Promise<ObjectList> {
    return this.#call(async () => {
      const list = (await this.#client.request("GET", await this.#client.path(type, options.namespace), { query: { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector } })) as { items?: KubeObject[]; metadata?: { resourceVersion?: string } };
      // A list's items carry no apiVersion/kind on a real server; the sim's do: add them, as client-go's typed lists are read.
      return { items: (list.items ?? []).map((item) => ({ ...item, apiVersion: type.apiVersion, kind: type.kind })), resourceVersion: list.metadata?.resourceVersion ?? "" };
    });
  }

  async create(object: KubeObject): Promise<KubeObject> {
    return this.#call(async () => (await this.#client.request("POST", await this.#client.path(object, object.metadata.namespace), { body: object })) as KubeObject);
  }

  async update(object: KubeObject, options: SubresourceOptions = {}): Promise<KubeObject> {
    return this.#call(async () => (await this.#client.request("PUT", await this.#client.path(object, object.metadata.namespace, object.metadata.name, options.subresource), { body: object })) as KubeObject);
  }

  async patch(type: TypeRef, namespace: string | undefined, name: string, patch: unknown, patchType: PatchType, options: SubresourceOptions = {}): Promise<KubeObject> {
    return this.#call(async () => {
      const path = await this.#client.path(type, namespace, name, options.subresource);
      const query = patchType === "apply" ? { fieldManager: "edgeloop-e2e", force: "true" } : undefined;
      const body = patchType === "apply" ? { apiVersion: type.apiVersion, kind: type.kind, ...(patch as object) } : patch;
      return (await this.#client.request("PATCH", path, { body, contentType: PATCH_CONTENT_TYPES[patchType], ...(query ? { query } : {}) })) as KubeObject;
    });
  }

  async delete(type: TypeRef, namespace: string | undefined, name: string, options: DeleteOptions = {}): Promise<KubeObject> {
    return this.#call(async () => {
      const body = { apiVersion: "v1", kind: "DeleteOptions", ...options };
      return (await this.#client.request("DELETE", await this.#client.path(type, namespace, name), { body })) as KubeObject;
    });
  }

  async bind(namespace: string, podName: string, nodeName: string, podUid?: string): Promise<void> {
    await this.#call(async () => {
      const body = { apiVersion: "v1", kind: "Binding", metadata: { name: podName, namespace, ...(podUid ? { uid: podUid } : {}) }, target: { apiVersion: "v1", kind: "Node", name: nodeName } };
      return this.#client.request("POST", await this.#client.path({ apiVersion: "v1", kind: "Pod" }, namespace, podName, "binding"), { body });
    });
  }

  /** Runs a request, turning the server's refusal into the sim's ApiError. */
  async #call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (error instanceof StatusError) throw new ApiError(error.status, error.reason, error.message);
      throw error;
    }
  }
}
