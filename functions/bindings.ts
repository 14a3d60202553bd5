/**
 * The Worker's bindings: the HMAC secret and one Durable Object namespace per entry of
 * `durable/table.ts`. The `Env` type is derived from that table, so a binding is declared
 * once; `test/worker/wrangler.test.ts` checks that wrangler.jsonc says the same.
 */
import { z } from "zod";
import type * as DurableClasses from "./durable-classes.ts";
import { ledgerObjectName, OUTBOX_OBJECT_NAME, replayShardName } from "../durable/names.ts";
import type { DURABLE_OBJECTS, DurableObjectBinding, DurableObjectContracts } from "../durable/table.ts";
import type { DurableObjects, WorkerDeps } from "./deps.ts";

/** The class a binding's table entry names. */
type ClassOf<B extends DurableObjectBinding> = InstanceType<(typeof DurableClasses)[(typeof DURABLE_OBJECTS)[B]["className"]]>;

/** The Worker's bindings (wrangler.jsonc / miniflare options). */
export type Env = { readonly EDGELOOP_SECRET: string; readonly EDGELOOP_API_ADDRESS?: string } & { readonly [B in DurableObjectBinding]: DurableObjectNamespace<ClassOf<B>> };

/**
 * Compile-time proof that each binding's class answers its contract over RPC, so the one
 * conversion in {@link durableObjects} is sound: a class renamed in the table, or a
 * contract method it lacks, fails the typecheck here.
 */
type StubsFit = { [B in DurableObjectBinding]: DurableObjectStub<ClassOf<B>> extends DurableObjectContracts[B] ? true : false };
const STUBS_FIT: StubsFit = { LEDGER: true, OUTBOX: true, REPLAY: true, GANG: true };
void STUBS_FIT;

const Vars = z.object({ EDGELOOP_SECRET: z.string().min(16, "EDGELOOP_SECRET must be at least 16 characters") });

/** The relay Service's API port as `npm run install-relay` makes it (wrangler.jsonc says the same). */
export const DEFAULT_API_ADDRESS = "edgeloop-relay.edgeloop:8080";

/** `host:port`, no scheme: what DI-engine's coordinator (and the like) read. */
const ApiAddress = z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$/, "EDGELOOP_API_ADDRESS must be host:port").default(DEFAULT_API_ADDRESS);

/** The typed accessor over the environment's Durable Object namespaces. */
function durableObjects(env: Env): DurableObjects {
  return <B extends DurableObjectBinding>(binding: B, name: string): DurableObjectContracts[B] => {
    const namespace = env[binding];
    return namespace.get(namespace.idFromName(name)) as unknown as DurableObjectContracts[B];
  };
}

/**
 * Resolves the route dependencies from the bindings. A missing or short secret is not
 * thrown here: the signature check refuses every signed request instead (500, named).
 */
export function depsFromEnv(raw: unknown): WorkerDeps {
  const env = raw as Env;
  const vars = Vars.safeParse(env);
  const durableObject = durableObjects(env);
  const apiAddress = ApiAddress.safeParse(env.EDGELOOP_API_ADDRESS);
  return {
    secret: vars.success ? vars.data.EDGELOOP_SECRET : "",
    // A malformed address is not thrown here either: pods get the default, and the log says why.
    settings: { apiAddress: apiAddress.success ? apiAddress.data : DEFAULT_API_ADDRESS },
    ledger: {
      claimAll: (namespace, claims, once) => durableObject("LEDGER", ledgerObjectName(namespace)).claimAll(claims, once),
      release: (namespace, key) => durableObject("LEDGER", ledgerObjectName(namespace)).release(key),
      remember: (namespace, key, ttlSeconds, value) => durableObject("LEDGER", ledgerObjectName(namespace)).remember(key, ttlSeconds, value),
    },
    outbox: { read: (cursor, waitSeconds) => durableObject("OUTBOX", OUTBOX_OBJECT_NAME).read(cursor, waitSeconds) },
    replay: { first: (signature, expiresAt) => durableObject("REPLAY", replayShardName(signature)).first(signature, expiresAt) },
    durableObject,
    // Bound to the request by the app (see guardReplays in app.ts).
    beforeStateChange: () => Promise.resolve(),
    nowSeconds: () => Date.now() / 1000,
  };
}
