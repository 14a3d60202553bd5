import { z } from "zod";
import type { WorkerDeps } from "./deps.ts";
import type { Outbox, RecreationLedger, ReplayGuard } from "../durable/index.ts";

/** The Worker's bindings (wrangler.jsonc / miniflare options). */
export interface Env {
  readonly EDGELOOP_SECRET: string;
  readonly LEDGER: DurableObjectNamespace<RecreationLedger>;
  readonly OUTBOX: DurableObjectNamespace<Outbox>;
  readonly REPLAY: DurableObjectNamespace<ReplayGuard>;
}

const Vars = z.object({ EDGELOOP_SECRET: z.string().min(16, "EDGELOOP_SECRET must be at least 16 characters") });

/** Ledger objects are per namespace; cluster-scoped keys share one. */
function ledgerName(namespace: string | undefined): string {
  return namespace ? `ns:${namespace}` : "cluster";
}

/**
 * Resolves the route dependencies from the bindings. A missing or short secret is not
 * thrown here: the signature check refuses every signed request instead (500, named).
 */
export function depsFromEnv(raw: unknown): WorkerDeps {
  const env = raw as Env;
  const vars = Vars.safeParse(env);
  return {
    secret: vars.success ? vars.data.EDGELOOP_SECRET : "",
    ledger: {
      claim: (namespace, key, ttlSeconds) => env.LEDGER.get(env.LEDGER.idFromName(ledgerName(namespace))).claim(key, ttlSeconds),
    },
    outbox: {
      // One outbox per Worker: the relay drains it with one cursor.
      read: (cursor, waitSeconds) => env.OUTBOX.get(env.OUTBOX.idFromName("outbox")).read(cursor, waitSeconds),
    },
    replay: {
      // 16 shards by the signature's first hex digit.
      first: (signature, expiresAt) => env.REPLAY.get(env.REPLAY.idFromName(`shard:${signature.charAt(7)}`)).first(signature, expiresAt),
    },
    env: env as unknown as Readonly<Record<string, unknown>>,
    // Bound to the request by the app (see guardReplays in app.ts).
    beforeStateChange: () => Promise.resolve(),
    nowSeconds: () => Date.now() / 1000,
  };
}
