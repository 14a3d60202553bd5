/**
 * The in-process baseline of ADR 0015: the Worker's hono app, from its bundle for Node,
 * answering the relay's requests inside the relay's own process. A {@link WorkerTransport}
 * hands each request to the app's `fetch(request, env, ctx)` directly: the same routes,
 * zod parsing and signature checks as in workerd, with no socket, no workerd and no
 * isolate. The env holds the secret, the variables and one {@link InProcessNamespace} per
 * declared Durable Object binding (the floor's and every family's, ADR 0022).
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { DurableObjectDeclaration } from "../../../durable/declaration.ts";
import type { WorkerTransport } from "../../../relay/deliver/worker-client.ts";
import { bindingsFileOf, type BundledBindings } from "./bindings-file.ts";
import { InProcessNamespace, type DurableObjectClass } from "./namespace.ts";

/** What the Worker bundle exports: its handler and its Durable Object classes. */
interface WorkerModule {
  readonly default: { fetch(request: Request, env: unknown, ctx: unknown): Response | Promise<Response> };
  readonly [className: string]: unknown;
}

/** How to run the Worker in process. */
export interface InProcessOptions {
  /** The Worker bundled for Node (`bundleWorkerForNode`). */
  readonly modulePath: string;
  readonly secret: string;
  /** `host:port` of the relay's plain-HTTP API port (the Worker's `EDGELOOP_API_ADDRESS`). */
  readonly apiAddress?: string;
  /** More Worker variables (wrangler.jsonc `vars`). */
  readonly vars?: Readonly<Record<string, string>>;
  /** Keep the Durable Objects' state in files below this folder, each commit synced (in memory when absent). */
  readonly storageDir?: string;
}

/** A Worker answering in this process. */
export interface InProcessWorker {
  readonly transport: WorkerTransport;
  /** The object `name` of a declared Durable Object (as `RunningWorker.durableObject`). */
  durableObject<Contract>(declaration: DurableObjectDeclaration<Contract>, name: string): Contract;
  /** Stops the Durable Objects' alarms and frees their storage. */
  close(): void;
}

/** The execution context the app is called with: nothing the Worker uses waits on it. */
const EXECUTION_CONTEXT = {
  waitUntil: (promise: Promise<unknown>): void => void promise.catch(() => undefined),
  passThroughOnException: (): void => undefined,
  props: {},
};

/** Imports the bundle and builds its env; the transport is ready at once. */
export async function startInProcessWorker(options: InProcessOptions): Promise<InProcessWorker> {
  const module = (await import(pathToFileURL(options.modulePath).href)) as WorkerModule;
  const bindings = JSON.parse(readFileSync(bindingsFileOf(options.modulePath), "utf8")) as BundledBindings;
  const env: Record<string, unknown> = { ...bindings.vars, ...options.vars, EDGELOOP_SECRET: options.secret, ...(options.apiAddress ? { EDGELOOP_API_ADDRESS: options.apiAddress } : {}) };
  const namespaces = new Map<string, InProcessNamespace>();
  for (const { binding, className } of bindings.durableObjects) {
    const Class = module[className];
    if (typeof Class !== "function") throw new Error(`the Worker bundle exports no class ${className} (binding ${binding})`);
    const storageDir = options.storageDir === undefined ? undefined : join(options.storageDir, binding);
    if (storageDir !== undefined) mkdirSync(storageDir, { recursive: true });
    const namespace = new InProcessNamespace(Class as DurableObjectClass, () => env, storageDir);
    namespaces.set(binding, namespace);
    env[binding] = namespace;
  }
  const transport: WorkerTransport = async (url, init) => {
    const { signal } = init;
    signal?.throwIfAborted();
    const request = new Request(url, { method: init.method, headers: init.headers, ...(init.body === undefined ? {} : { body: init.body }) });
    const answer = Promise.resolve(module.default.fetch(request, env, EXECUTION_CONTEXT));
    if (!signal) return answer;
    // The app does not watch the signal (an outbox long poll waits in a Durable Object): the caller stops waiting instead.
    return Promise.race([
      answer,
      new Promise<never>((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true })),
    ]);
  };
  return {
    transport,
    durableObject: <Contract>(declaration: DurableObjectDeclaration<Contract>, name: string): Contract => {
      const namespace = namespaces.get(declaration.binding);
      if (!namespace) throw new Error(`no binding ${declaration.binding}`);
      return namespace.get(namespace.idFromName(name)) as Contract;
    },
    close: () => {
      for (const namespace of namespaces.values()) namespace.close();
    },
  };
}
