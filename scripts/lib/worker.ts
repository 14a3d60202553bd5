/**
 * Runs the Worker in real workerd through Miniflare, on 127.0.0.1: the same bundle,
 * Durable Objects (SQLite-backed) and bindings that the deploy configuration declares
 * (the floor's and every family's declarations, ADR 0022).
 */
import { Miniflare } from "miniflare";
import type { DurableObjectDeclaration } from "../../durable/declaration.ts";
import { bundleWorker } from "./bundle.ts";
import { allDurableObjects, familyVars, loadFamilyBindings, migrationHistory, type DeclaredBindings } from "./durable-objects.ts";
import { killWithParent, lockDurableState, workerdChildren } from "./workerd-process.ts";
import { startFramingGuard } from "./framing-guard.ts";

/** The Workers runtime behaviour the Worker is written for (test/worker/deployed.test.ts checks the deploy configuration agrees). */
export const COMPATIBILITY_DATE = "2026-07-01";

/** Compatibility flags, beyond the date's (none): what wrangler.jsonc's `compatibility_flags` must say too. */
export const COMPATIBILITY_FLAGS: readonly string[] = [];

/**
 * Cloudflare's memory limit of one isolate: 128 MB. workerd enforces none of its own, so
 * each isolate's V8 heap is capped at that (Miniflare passes V8 flags to workerd only
 * through this variable): a Worker that would be reset on Cloudflare for its memory fails
 * here too, loudly (workerd aborts with "Reached heap limit"), instead of passing locally.
 */
export const ISOLATE_HEAP_LIMIT_MB = 128;

/** Miniflare's Durable Object options by binding, from every declaration: each class SQLite-backed, as the migrations create them. */
export function miniflareDurableObjects(families: readonly DeclaredBindings[]): Record<string, { className: string; useSQLite: true }> {
  const declarations = allDurableObjects(families);
  // Checked as a deploy checks them: a local run must not start on declarations that could not be deployed.
  migrationHistory(declarations);
  return Object.fromEntries(declarations.map((declaration) => [declaration.binding, { className: declaration.className, useSQLite: true as const }]));
}

/** How to run the Worker. */
export interface WorkerOptions {
  /** HMAC key of the signed protocol. */
  readonly secret: string;
  /** Port on 127.0.0.1; 0 or absent picks a free one. */
  readonly port?: number;
  /** Extra controller roots (tests' own controllers). */
  readonly extraControllerDirs?: readonly string[];
  /** Keep Durable Object state in this folder (survives `restart`); in memory otherwise. */
  readonly persistDir?: string;
  /** `host:port` where the relay serves the controllers' APIs over plain HTTP (the Worker's `EDGELOOP_API_ADDRESS`). */
  readonly apiAddress?: string;
  /** More Worker variables (as wrangler.jsonc `vars` declares them), e.g. a controller's settings. */
  readonly vars?: Readonly<Record<string, string>>;
  /**
   * Serve through a Node front that answers malformed framing (`Content-Length`,
   * `Transfer-Encoding`) with a 400, where workerd answers a 500 (`./framing-guard.ts`):
   * the URL and `port` are the front's, workerd listens on a port of its own.
   */
  readonly guardFraming?: boolean;
  /**
   * The isolate's V8 heap cap in MB: Cloudflare's {@link ISOLATE_HEAP_LIMIT_MB} when absent.
   * Lower only to prove headroom (`npm run bench -- limits` runs at half of it).
   */
  readonly heapLimitMb?: number;
  /** Serve workerd's V8 inspector on this port of 127.0.0.1 (a bench reads the isolate's heap through it). */
  readonly inspectorPort?: number;
}

/** A running Worker. */
export interface RunningWorker {
  /** Base URL, e.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  /** A workerd left on the same Durable Object state by an owner that died, stopped before this one started. */
  readonly stoppedOrphan?: number;
  /** Stops workerd (if running) and starts it again with the same bundle, port and state. */
  restart(): Promise<void>;
  /** Stops workerd; a second call does nothing. */
  stop(): Promise<void>;
  /** An RPC stub of the object `name` of a declared Durable Object, typed by its contract (for tests and tools). */
  durableObject<Contract>(declaration: DurableObjectDeclaration<Contract>, name: string): Promise<Contract>;
}

/**
 * Bundles the controllers and serves the Worker in workerd; resolves once it answers.
 *
 * The URL is the Worker's own workerd socket (Miniflare's `unsafeDirectSockets`), not
 * Miniflare's entry worker: every relay request used to pass through that extra worker, a
 * second JS hop that cost a fifth to a third of workerd's CPU per reconcile. Miniflare
 * still binds its entry socket (on a free port) for its own `dispatchFetch` and RPC stubs.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const script = await bundleWorker({ extraControllerDirs: options.extraControllerDirs ?? [] });
  const families = await loadFamilyBindings();
  const durableObjects = miniflareDurableObjects(families);
  // The families' variables as deployed (their defaults), under the ones this run sets.
  const vars = { ...familyVars(families), ...options.vars };
  // Not configuration read: the one way to hand workerd V8 flags through Miniflare.
  process.env.MINIFLARE_WORKERD_V8_FLAGS = `--max-heap-size=${options.heapLimitMb ?? ISOLATE_HEAP_LIMIT_MB}`;
  const make = (port: number): Miniflare =>
    new Miniflare({
      modules: [{ type: "ESModule", path: "worker.js", contents: script }],
      compatibilityDate: COMPATIBILITY_DATE,
      compatibilityFlags: [...COMPATIBILITY_FLAGS],
      bindings: { ...vars, EDGELOOP_SECRET: options.secret, ...(options.apiAddress ? { EDGELOOP_API_ADDRESS: options.apiAddress } : {}) },
      durableObjects,
      durableObjectsPersist: options.persistDir ?? false,
      host: "127.0.0.1",
      port: 0,
      unsafeDirectSockets: [{ host: "127.0.0.1", port }],
      ...(options.inspectorPort === undefined ? {} : { inspectorPort: options.inspectorPort }),
    });
  // One workerd per Durable Object state folder: a second one on the same files is refused, an orphan stopped.
  const lock = options.persistDir ? await lockDurableState(options.persistDir) : undefined;
  let unwatch = (): void => undefined;
  /** Starts workerd and ties it to this process: it dies with it, however this process dies. */
  const launch = async (port: number): Promise<Miniflare> => {
    const before = new Set(workerdChildren());
    const started = make(port);
    await started.ready;
    const spawned = workerdChildren().filter((pid) => !before.has(pid));
    const unwatchAll = spawned.map(killWithParent);
    unwatch = () => unwatchAll.forEach((end) => end());
    if (spawned[0] !== undefined) lock?.record(spawned[0]);
    return started;
  };
  let mf: Miniflare;
  try {
    mf = await launch(options.guardFraming ? 0 : (options.port ?? 0));
  } catch (error) {
    lock?.release();
    throw error;
  }
  let running = true;
  const direct = await mf.unsafeGetDirectURL();
  // A restart binds the same port again, so the URL the relay was given stays valid.
  const port = Number(direct.port);
  const guard = options.guardFraming
    ? await startFramingGuard(direct.origin, options.port ?? 0).catch(async (error: unknown) => {
        running = false;
        unwatch();
        await mf.dispose();
        lock?.release();
        throw error;
      })
    : undefined;
  const url = guard ? new URL(guard.url) : direct;
  const dispose = async (): Promise<void> => {
    if (!running) return;
    running = false;
    unwatch();
    await mf.dispose();
  };
  const stop = async (): Promise<void> => {
    await guard?.close();
    await dispose();
    lock?.release();
  };
  return {
    url: url.origin,
    ...(lock?.stoppedOrphan === undefined ? {} : { stoppedOrphan: lock.stoppedOrphan }),
    async restart(): Promise<void> {
      await dispose();
      mf = await launch(port);
      running = true;
    },
    stop,
    async durableObject<Contract>(declaration: DurableObjectDeclaration<Contract>, name: string): Promise<Contract> {
      const namespace = await mf.getDurableObjectNamespace(declaration.binding);
      return namespace.get(namespace.idFromName(name)) as unknown as Contract;
    },
  };
}
