/**
 * What the controllers' HTTP APIs (`./api.ts`) reach behind the front: the Worker that
 * answers them, the caches their `related` objects come from, and the apply stage, which
 * applies an answer's actions only in the namespace the request names and on kinds the
 * controller declares (the front is unauthenticated: its caller must not steer a write
 * anywhere else).
 */
import type { Action, ApiResponse, ClaimToken, Manifest } from "../../protocol/index.ts";
import type { RelatedCaches } from "../../protocol/snapshot/caches.ts";
import type { PlanSink } from "../apply/guard.ts";
import type { ManifestSource } from "../deliver/manifest.ts";
import type { WorkerClient } from "../deliver/worker-client.ts";
import type { Metrics } from "../ops/metrics.ts";
import type { ApiHost } from "./api.ts";

/** What the gateway uses. */
export interface ApiGatewayDeps {
  readonly manifests: ManifestSource;
  readonly related: RelatedCaches;
  readonly worker: Pick<WorkerClient, "api" | "releaseClaims">;
  /** The apply stage: the scope guard, then the applier. */
  readonly plans: PlanSink;
  readonly metrics: Metrics;
}

/** The APIs' host: the Worker, the caches and the apply stage. */
export class ApiGateway implements ApiHost {
  readonly #deps: ApiGatewayDeps;

  constructor(deps: ApiGatewayDeps) {
    this.#deps = deps;
  }

  get manifest(): Manifest {
    return this.#deps.manifests.manifest;
  }

  get relatedCaches(): RelatedCaches {
    return this.#deps.related;
  }

  forward(name: string, request: unknown, timeoutMs: number): Promise<ApiResponse> {
    return this.#deps.worker.api(name, request, timeoutMs);
  }

  async applyAction(action: Action, api: string, namespace: string | undefined): Promise<void> {
    const controller = this.#deps.manifests.manifest.controllers.find((c) => c.apis.some((a) => a.name === api));
    if (!controller) throw new Error(`refused: API ${api} is not in the manifest`);
    await this.#deps.plans.applyAction(action, { controller, scope: { namespace: namespace ?? "" }, target: { controller: controller.name } });
  }

  countApiRequest(api: string, status: number): void {
    this.#deps.metrics.inc("edgeloop_api_requests_total", { api, code: String(status) });
  }

  async releaseClaims(claims: readonly ClaimToken[]): Promise<void> {
    await this.#deps.worker.releaseClaims(claims);
  }
}
