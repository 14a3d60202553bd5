import { Hono, type Context } from "hono";
import type { Controller } from "./kit/controller.ts";
import type { DepsResolver, WorkerDeps } from "./deps.ts";
import { errorResponse, HttpError } from "./http/errors.ts";
import { readSignedBody, refuseReplay, replayed, signatureOnce } from "./http/signature.ts";
import { PROTOCOL_VERSION, READINESS_PATH, createVerifier, type Verifier } from "../protocol/index.ts";
import { createRegistry } from "./registry.ts";
import { admissionRoute } from "./routes/admission.ts";
import { apiRoute } from "./routes/api.ts";
import { channelRoute } from "./routes/channels.ts";
import { releaseRoute } from "./routes/claims.ts";
import { outboxRoute } from "./routes/outbox.ts";
import { readinessRoute } from "./routes/readiness.ts";
import { eventsRoute, reconcileRoute } from "./routes/reconcile.ts";

type Handler = (c: Context, body: Uint8Array, deps: WorkerDeps) => Promise<unknown> | unknown;

/**
 * Binds the replay check to this request, run once and only before Worker state would
 * change: the first ledger claim (or remembered API reply), an events controller's handling, an outbox read
 * (its cursor acknowledges, that is deletes, entries), or an edge channel's call. Checking every
 * request cost a Durable Object call each and halved reconciles/s; a replayed request
 * that changes nothing is answered again, harmlessly (the answer goes to its sender and
 * the Worker holds no cluster credentials).
 */
function guardReplays(deps: WorkerDeps, request: Request): WorkerDeps {
  let checked: Promise<void> | undefined;
  const once = (): Promise<void> => (checked ??= refuseReplay(request, deps.replay));
  return {
    ...deps,
    ledger: {
      claimAll: async (namespace, claims) => {
        if (checked) {
          await checked;
          return deps.ledger.claimAll(namespace, claims);
        }
        // The first state change: the ledger checks the signature in the claims' own write
        // (a replay guard write of its own was a second disk commit per healed pod).
        const answer = deps.ledger.claimAll(namespace, claims, signatureOnce(request));
        checked = answer.then((a) => {
          if (a.replayed) throw replayed();
        });
        await checked;
        return answer;
      },
      release: async (namespace, key) => {
        await once();
        return deps.ledger.release(namespace, key);
      },
      remember: async (namespace, key, ttlSeconds, value) => {
        await once();
        return deps.ledger.remember(namespace, key, ttlSeconds, value);
      },
    },
    beforeStateChange: once,
  };
}

/**
 * The Worker's HTTP surface. Every route but `/healthz` is signed: the signature headers
 * are checked, then the body is read (at most 8 MiB), the signature verified over the
 * method, path and query and those exact bytes, and only then parsed and handled.
 * Errors are JSON `ErrorBody`s naming the field.
 */
export function createApp(controllers: readonly Controller[], resolveDeps: DepsResolver): Hono {
  const registry = createRegistry(controllers);
  const app = new Hono();
  // The key imported once per secret (the bindings' secret is one per deployment).
  const verifiers = new Map<string, Verifier>();
  const verifierFor = (secret: string): Verifier => {
    let verifier = verifiers.get(secret);
    if (!verifier) {
      verifiers.clear();
      verifier = createVerifier(secret);
      verifiers.set(secret, verifier);
    }
    return verifier;
  };

  const signed = (handler: Handler) => async (c: Context): Promise<Response> => {
    try {
      const deps = guardReplays(resolveDeps(c.env), c.req.raw);
      const body = await readSignedBody(c.req.raw, deps.secret, deps.nowSeconds(), deps.secret ? verifierFor(deps.secret) : undefined);
      return c.json((await handler(c, body, deps)) as object);
    } catch (error) {
      return errorResponse(c, error);
    }
  };

  app.get("/healthz", (c) => c.json({ ok: true, protocol: PROTOCOL_VERSION }));
  app.get("/v1/manifest", signed(() => registry.manifest));
  app.get(READINESS_PATH, signed((_c, _body, deps) => readinessRoute(deps)));
  app.post("/v1/reconcile/:controller", signed((c, body, deps) => reconcileRoute(registry, c.req.param("controller") ?? "", body, deps)));
  app.post("/v1/events/:controller", signed((c, body, deps) => eventsRoute(registry, c.req.param("controller") ?? "", body, deps)));
  app.post("/v1/admission/:webhook", signed((c, body) => admissionRoute(registry, c.req.param("webhook") ?? "", body)));
  app.post("/v1/api/:api", signed((c, body, deps) => apiRoute(registry, c.req.param("api") ?? "", body, deps)));
  app.post("/v1/claims/release", signed((_c, body, deps) => releaseRoute(body, deps)));
  app.get("/v1/outbox", signed((c, _body, deps) => outboxRoute(c.req.query(), deps)));
  app.post("/v1/channels/:channel/connect", signed((c, body, deps) => channelRoute(registry, c.req.param("channel") ?? "", "connect", body, deps)));
  app.post("/v1/channels/:channel/feed", signed((c, body, deps) => channelRoute(registry, c.req.param("channel") ?? "", "feed", body, deps)));
  app.post("/v1/channels/:channel/receive", signed((c, body, deps) => channelRoute(registry, c.req.param("channel") ?? "", "receive", body, deps)));
  app.notFound((c) => errorResponse(c, new HttpError(404, "not_found", `no route ${c.req.method} ${c.req.path}`, "path")));
  app.onError((error, c) => errorResponse(c, error));
  return app;
}
