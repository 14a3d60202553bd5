/**
 * One action as the Kubernetes API request that applies it: a create, a merge patch (of
 * the object or its status), a delete with its preconditions, a pod binding, or a core/v1
 * Event. What the API server answers is returned; what each answer means for the plan is
 * the applier's to decide (`./applier.ts`).
 */
import { StatusError, type Action, type EventAction, type KubeObject, type ObjectRef } from "../../protocol/index.ts";
import type { KubeClient } from "../kube/client.ts";

/** A bind the API server refused with a Conflict: the pod is bound already, or is another pod now. */
export class AlreadyBound extends Error {}

/** Sends actions with one client, as one component (the Events' `source`). */
export class ActionRequests {
  readonly #client: Pick<KubeClient, "path" | "request">;
  readonly #component: string;

  constructor(client: Pick<KubeClient, "path" | "request">, component: string) {
    this.#client = client;
    this.#component = component;
  }

  /** Sends one action; returns the created object for a create (its name may have been generated), the patched one for a status write. A delete of something already gone succeeds. */
  async send(action: Action): Promise<KubeObject | undefined> {
    switch (action.type) {
      case "create":
        return action.ifAbsent === true ? this.#createIfAbsent(action.object) : this.#create(action.object);
      case "patch":
        return this.#patch(action);
      case "status":
        return this.#status(action);
      case "delete":
        return this.#delete(action);
      case "bind":
        return this.#bind(action);
      case "event":
        return this.#event(action);
    }
  }

  /** Records a core/v1 Event on `target` (what reports a plan's failures). */
  async event(target: ObjectRef, type: EventAction["eventType"], reason: string, message: string): Promise<void> {
    const namespace = target.namespace ?? "default";
    const stamp = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    const event: KubeObject = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { generateName: `${target.name}.`, namespace },
      involvedObject: { apiVersion: target.apiVersion, kind: target.kind, name: target.name, namespace: target.namespace, ...(target.uid ? { uid: target.uid } : {}) },
      type,
      reason,
      message,
      source: { component: this.#component },
      reportingComponent: this.#component,
      reportingInstance: this.#component,
      firstTimestamp: stamp,
      lastTimestamp: stamp,
      count: 1,
    };
    await this.#client.request("POST", await this.#client.path({ apiVersion: "v1", kind: "Event" }, namespace), { body: event });
  }

  async #create(object: KubeObject): Promise<KubeObject | undefined> {
    const path = await this.#client.path(object, object.metadata.namespace);
    return (await this.#client.request("POST", path, { body: object })) as KubeObject | undefined;
  }

  /** A create whose AlreadyExists means applied (`CreateAction.ifAbsent`): nothing is answered then. */
  async #createIfAbsent(object: KubeObject): Promise<KubeObject | undefined> {
    try {
      return await this.#create(object);
    } catch (error) {
      if (error instanceof StatusError && error.status === 409 && error.reason === "AlreadyExists") return undefined;
      throw error;
    }
  }

  async #patch(action: Extract<Action, { type: "patch" }>): Promise<undefined> {
    const path = await this.#client.path(action.target, action.target.namespace, action.target.name);
    const patch = action.resourceVersion ? { ...action.patch, metadata: { ...((action.patch.metadata as object | undefined) ?? {}), resourceVersion: action.resourceVersion } } : action.patch;
    await this.#client.request("PATCH", path, { body: patch, contentType: "application/merge-patch+json" });
    return undefined;
  }

  /** The answer goes back to the listeners only (its resourceVersion names the write's watch echo). */
  async #status(action: Extract<Action, { type: "status" }>): Promise<KubeObject | undefined> {
    const path = await this.#client.path(action.target, action.target.namespace, action.target.name, "status");
    const body = action.resourceVersion ? { metadata: { resourceVersion: action.resourceVersion }, status: action.status } : { status: action.status };
    return (await this.#client.request("PATCH", path, { body, contentType: "application/merge-patch+json" })) as KubeObject | undefined;
  }

  async #delete(action: Extract<Action, { type: "delete" }>): Promise<undefined> {
    // The scope guard turns a root delete into the delete of the root it found; one that
    // reaches here unresolved must not delete its target instead.
    if (action.root === true) throw new StatusError(400, "BadRequest", "a root delete was not resolved to its root owner");
    const path = await this.#client.path(action.target, action.target.namespace, action.target.name);
    const body = { kind: "DeleteOptions", apiVersion: "v1", ...(action.propagationPolicy ? { propagationPolicy: action.propagationPolicy } : {}), ...(action.preconditions ? { preconditions: action.preconditions } : {}) };
    try {
      await this.#client.request("DELETE", path, { body });
    } catch (error) {
      if (!(error instanceof StatusError && error.status === 404)) throw error;
    }
    return undefined;
  }

  async #bind(action: Extract<Action, { type: "bind" }>): Promise<undefined> {
    const path = await this.#client.path({ apiVersion: "v1", kind: "Pod" }, action.pod.namespace, action.pod.name, "binding");
    try {
      await this.#client.request("POST", path, {
        body: { apiVersion: "v1", kind: "Binding", metadata: { name: action.pod.name, namespace: action.pod.namespace, ...(action.pod.uid ? { uid: action.pod.uid } : {}) }, target: { apiVersion: "v1", kind: "Node", name: action.node } },
      });
    } catch (error) {
      // A Conflict on pods/binding: the pod is bound already (a bind sent again before the
      // watch showed the first), or it is another pod now (its uid differs). Neither is
      // retried; the watch tells the scheduler where the pod is.
      if (error instanceof StatusError && error.status === 409) throw new AlreadyBound(error.message);
      throw error;
    }
    return undefined;
  }

  async #event(action: EventAction): Promise<undefined> {
    await this.event(action.target, action.eventType, action.reason, action.message);
    return undefined;
  }
}
