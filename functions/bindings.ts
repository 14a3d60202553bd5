/**
 * The Worker's bindings: the HMAC secret, the API address, and one Durable Object
 * namespace per declaration (the floor's, `durable/table.ts`, and each family's own,
 * ADR 0022). A binding is reached through its declaration, which types it by its
 * contract; wrangler's deploy configuration and miniflare's options are derived from the
 * same declarations (`scripts/lib/wrangler-config.ts`, `scripts/lib/worker.ts`).
 */
import { z } from "zod";
import type { DurableObjectDeclaration } from "../durable/declaration.ts";
import type { Outbox, RecreationLedger, ReplayGuard } from "../durable/index.ts";
import { ledgerObjectName, OUTBOX_OBJECT_NAME, READINESS_OBJECT_NAME, replayShardName } from "../durable/names.ts";
import { LEDGER, OUTBOX, REPLAY } from "../durable/table.ts";
import type { DurableNamespace, DurableObjects, WorkerDeps } from "./deps.ts";
import type { ProbedDurableObject } from "../durable/probed.ts";
import type { StubAnswers } from "./kit/durable-object.ts";

/** The Worker's environment as wrangler (or miniflare) fills it: variables, the secret, and namespaces by binding. */
type Env = Readonly<Record<string, unknown>>;

/**
 * Compile-time proof that each floor class answers its contract over RPC, so the one
 * conversion in {@link durableObjects} is sound for the floor (a family's `durable.ts`
 * proves its own): a class renamed, or a contract method it lacks, fails the typecheck.
 */
const FLOOR_STUBS_ANSWER: [StubAnswers<RecreationLedger, typeof LEDGER>, StubAnswers<Outbox, typeof OUTBOX>, StubAnswers<ReplayGuard, typeof REPLAY>] = [true, true, true];
void FLOOR_STUBS_ANSWER;

const Vars = z.object({ EDGELOOP_SECRET: z.string().min(16, "EDGELOOP_SECRET must be at least 16 characters") });

/** The relay Service's API port as `npm run install-relay` makes it (wrangler.jsonc says the same). */
export const DEFAULT_API_ADDRESS = "edgeloop-relay.edgeloop:8080";

/** `host:port`, no scheme: what a pod calling a controller's API reads. */
const ApiAddress = z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$/, "EDGELOOP_API_ADDRESS must be host:port").default(DEFAULT_API_ADDRESS);

/** Whether a binding holds a Durable Object namespace. */
function isNamespace(value: unknown): value is DurableObjectNamespace {
  return typeof value === "object" && value !== null && "idFromName" in value && "get" in value;
}

/**
 * The typed accessor over the environment's Durable Object namespaces. A declared binding
 * the environment lacks (a Worker deployed with `wrangler.jsonc` alone, not the generated
 * configuration) fails the call, naming it.
 */
function durableObjects(env: Env): DurableObjects {
  return <Contract>(declaration: DurableObjectDeclaration<Contract>, name: string): Contract => {
    const namespace = env[declaration.binding];
    if (!isNamespace(namespace)) throw new Error(`the Worker has no Durable Object binding ${declaration.binding} (class ${declaration.className}): deploy with npm run deploy, which adds every family's bindings`);
    return namespace.get(namespace.idFromName(name)) as unknown as Contract;
  };
}

/** Every Durable Object namespace in the environment, each read through its readiness object. */
function durableNamespaces(env: Env): DurableNamespace[] {
  return Object.entries(env).flatMap(([binding, namespace]) => {
    if (!isNamespace(namespace)) return [];
    const ready = (): Promise<string> => (namespace.get(namespace.idFromName(READINESS_OBJECT_NAME)) as unknown as Pick<ProbedDurableObject, "ready">).ready();
    return [{ binding, ready }];
  });
}

/**
 * Resolves the route dependencies from the bindings. A missing or short secret is not
 * thrown here: the signature check refuses every signed request instead (500, named).
 */
export function depsFromEnv(raw: unknown): WorkerDeps {
  const env = raw as Env;
  const vars = Vars.safeParse(env);
  const durableObject = durableObjects(env);
  const apiAddress = ApiAddress.safeParse(env["EDGELOOP_API_ADDRESS"]);
  return {
    secret: vars.success ? vars.data.EDGELOOP_SECRET : "",
    // A malformed address is not thrown here either: pods get the default, and the log says why.
    settings: { apiAddress: apiAddress.success ? apiAddress.data : DEFAULT_API_ADDRESS },
    ledger: {
      claimAll: (namespace, claims, once) => durableObject(LEDGER, ledgerObjectName(namespace)).claimAll(claims, once),
      release: (namespace, key) => durableObject(LEDGER, ledgerObjectName(namespace)).release(key),
      remember: (namespace, key, ttlSeconds, value) => durableObject(LEDGER, ledgerObjectName(namespace)).remember(key, ttlSeconds, value),
    },
    outbox: { read: (cursor, waitSeconds) => durableObject(OUTBOX, OUTBOX_OBJECT_NAME).read(cursor, waitSeconds) },
    replay: { first: (signature, expiresAt) => durableObject(REPLAY, replayShardName(signature)).first(signature, expiresAt) },
    durableObject,
    durableNamespaces: () => durableNamespaces(env),
    // Bound to the request by the app (see guardReplays in app.ts).
    beforeStateChange: () => Promise.resolve(),
    nowSeconds: () => Date.now() / 1000,
  };
}
