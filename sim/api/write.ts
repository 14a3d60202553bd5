/**
 * One write (create, update, delete) as the pipeline sees it: what the admission steps
 * (sim/api/admission/) and the kinds' hooks (sim/api/kinds/) are given. Built once per
 * request by the orchestrator (sim-cluster.ts).
 */
import type { KubeObject } from "../../protocol/index.ts";
import type { DeleteOptions } from "../contract.ts";
import type { IpAllocator } from "../pipeline/defaults.ts";
import type { DefaultTolerations } from "../pipeline/tolerations.ts";
import type { Registry } from "../registry/registry.ts";
import type { ResourceType } from "../registry/resource.ts";
import type { Store } from "../store/store.ts";
import type { ServiceResolver } from "./admission/webhooks.ts";
import type { Kind } from "./kinds/kind.ts";

/** What the steps and hooks may read or call of the API server: its state, clock and configuration. */
export interface Server {
  readonly store: Store;
  readonly registry: Registry;
  readonly now: () => Date;
  /** The next ClusterIP (Services). */
  readonly allocateIp: IpAllocator;
  /** How `service` webhook clientConfigs are reached. */
  readonly resolveService: ServiceResolver | undefined;
  /** What the DefaultTolerationSeconds plugin gives pods. */
  readonly defaultTolerations: DefaultTolerations;
}

/** One write request. */
export interface Write {
  readonly operation: "CREATE" | "UPDATE" | "DELETE";
  readonly resource: ResourceType;
  readonly kind: Kind;
  /** The version admission webhooks are told of (create and delete: the request's; update: the stored object's). */
  readonly version: string;
  /** The apiVersion the body came at: a custom resource is defaulted and checked with that version's schema. */
  readonly apiVersion: string;
  readonly subresource: "" | "status" | "finalize";
  readonly namespace: string | undefined;
  readonly name: string;
  /** The body as decoded; on create, before its name was generated (plugins name the object by its generateName then). */
  readonly body: KubeObject | null;
  /** The stored object (update and delete), else null. */
  readonly oldObject: KubeObject | null;
  /** The uid a created object will get (a Job's generated selector names it); "" otherwise. */
  readonly uid: string;
  readonly dryRun: boolean;
  /** Who writes (admission webhooks' `userInfo.username`); the sim's admin when absent. */
  readonly user?: string;
  /** A delete's preconditions. */
  readonly preconditions?: DeleteOptions["preconditions"];
  readonly server: Server;
}
