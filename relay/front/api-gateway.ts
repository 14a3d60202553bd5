/**
 * What the controllers' HTTP APIs (`./api.ts`) reach behind the front: the Worker that
 * answers them, the caches their `related` objects come from, and the apply stage, which
 * applies an answer's actions only in the namespace the request names and on kinds the
 * controller declares (the front is unauthenticated: its caller must not steer a write
 * anywhere else).
 */
import type { Action, ApiReaders, ApiResponse, ClaimToken, Manifest } from "../../protocol/index.ts";
import { SUBJECT_ACCESS_REVIEWS_PATH, TOKEN_REVIEWS_PATH, accessAllowed, reviewedUser, subjectAccessReview, tokenReview, type UserInfo } from "../../protocol/kube/reviews.ts";
import type { KubeClient } from "../kube/client.ts";
import type { RelatedCaches } from "../../protocol/snapshot/caches.ts";
import type { PlanSink } from "../apply/guard.ts";
import type { ManifestSource } from "../deliver/manifest.ts";
import type { WorkerClient } from "../deliver/worker-client.ts";
import type { Metrics } from "../ops/metrics.ts";
import type { ApiHost } from "./api.ts";
import type { CallerReviews } from "./readers.ts";

/** What the gateway uses. */
export interface ApiGatewayDeps {
  readonly manifests: ManifestSource;
  readonly related: RelatedCaches;
  readonly worker: Pick<WorkerClient, "api" | "releaseClaims">;
  /** The apply stage: the scope guard, then the applier. */
  readonly plans: PlanSink;
  readonly metrics: Metrics;
  /** The relay's client of the API server: TokenReviews and SubjectAccessReviews for APIs with readers. */
  readonly client: Pick<KubeClient, "request">;
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

  /** The API server's reviews, created with the relay's ServiceAccount (`create` on tokenreviews and subjectaccessreviews, granted when an API declares readers). */
  get reviews(): CallerReviews {
    const client = this.#deps.client;
    return {
      authenticate: async (token: string) => reviewedUser(await client.request("POST", TOKEN_REVIEWS_PATH, { body: tokenReview(token) })),
      allowed: async (user: UserInfo, readers: ApiReaders, namespace: string) =>
        accessAllowed(await client.request("POST", SUBJECT_ACCESS_REVIEWS_PATH, { body: subjectAccessReview(user, { verb: readers.verb, group: readers.group, resource: readers.resource, namespace }) })),
    };
  }
}
