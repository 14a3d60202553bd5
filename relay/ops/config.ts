/**
 * The relay's configuration: command-line flags and environment, parsed once by zod at
 * the entry point and handed down as {@link RelayOptions}.
 */
import { z } from "zod";
import type { RelayOptions } from "../index.ts";
import { LEVELS, LOG_FORMATS } from "../../cli/log.ts";
import { isDns1123Subdomain } from "../../protocol/kube/names.ts";
import { splitPortFlags, type NamedEndpointFlags, type SplitPortFlags } from "../../cli/port-flags.ts";

const port = z.coerce.number().int().min(0).max(65535);
const seconds = z.coerce.number().positive();

/** The relay's flags (strings from the command line, converted and defaulted here). */
export const RelayFlags = z
  .object({
    "worker-url": z.url({ error: "must be the Worker's URL, e.g. https://edgeloop.example.workers.dev" }).optional(),
    kubeconfig: z.string().min(1).optional(),
    concurrency: z.coerce.number().int().min(1).max(1024).default(16),
    "worker-in-flight": z.coerce.number().int().min(1).max(4096).default(256),
    // Cloudflare keeps an idle client connection 400 s; a local workerd 5 s (pass 4 there).
    "worker-keep-alive-seconds": z.coerce.number().int().min(1).max(390).default(60),
    "max-rate": z.coerce.number().positive().max(100_000).default(2_000),
    // 0 turns the periodic full resync off (relists and watch events still mark parents dirty).
    "resync-seconds": z.coerce.number().min(0).default(600),
    // client-go ends a watch after 5–10 minutes; a watch silent longer than this is taken for dead.
    "watch-silence-seconds": z.coerce.number().min(1).max(3600).default(300),
    "manifest-refresh-seconds": seconds.default(60),
    "outbox-wait-seconds": z.coerce.number().int().min(0).max(60).default(20),
    "ops-port": port.default(9090),
    "ops-host": z.string().min(1).default("127.0.0.1"),
    "front-port": port.optional(),
    // Loopback unless told: the front is unauthenticated, so it listens only where asked (the install passes the pod IP).
    "front-host": z.string().min(1).default("127.0.0.1"),
    "api-port": port.optional(),
    // Loopback unless told, like the front (the install passes the pod IP).
    "api-host": z.string().min(1).default("127.0.0.1"),
    "tls-cert": z.string().min(1).optional(),
    "tls-key": z.string().min(1).optional(),
    "log-level": z.enum(LEVELS).default("info"),
    "log-format": z.enum(LOG_FORMATS).optional(),
    "leader-elect": z.boolean().default(false),
    "lease-name": z.string().refine((name) => isDns1123Subdomain(name).length === 0, "must be a DNS subdomain").default("edgeloop-relay"),
    "lease-namespace": z.string().min(1).optional(),
    "lease-duration-seconds": z.coerce.number().int().min(2).max(300).default(15),
  })
  .refine((f) => f["front-port"] === undefined || (f["tls-cert"] !== undefined && f["tls-key"] !== undefined), {
    path: ["tls-cert"],
    message: "the admission front (--front-port) needs --tls-cert and --tls-key",
  });
export type RelayFlags = z.infer<typeof RelayFlags>;

/**
 * Node options the relay runs with in its image and Deployment. A young generation of at
 * most 8 MiB per semi-space (V8's default is 16) keeps resident memory near the live
 * heap: the relay's garbage is short-lived JSON, and scavenges of a small space are cheap.
 */
export const RELAY_NODE_OPTIONS = "--max-semi-space-size=8";

/**
 * V8 flags the relay runs with that NODE_OPTIONS cannot carry (Node refuses them there),
 * so they come before the script on the command line: the image's ENTRYPOINT and every
 * local relay process. `--optimize-for-size` grows the heap by small steps and gives it
 * back when idle. On the real control plane with 250 pods and 480 self-heals the relay's
 * resident memory went from 155–165 to 121 MiB, for 28 % more CPU per heal (12.7 → 16.3
 * ms); with 21,000 pods cached, from 269–359 to 147–152 MiB. Memory is what a container
 * is killed for, CPU only slows it. The measurements, and the middle ways, are in ADR 0034.
 */
export const RELAY_NODE_FLAGS: readonly string[] = ["--optimize-for-size"];

/**
 * The environment the relay runs with in its image, its Deployment and every local
 * process start: {@link RELAY_NODE_OPTIONS}, and glibc's allocator held to two arenas that
 * hand freed memory back above 128 KiB. A relay listing 100,000 pods sat at 427 MiB
 * resident with 142 MiB of live heap, the rest freed list pages and request bodies glibc
 * kept (about 290 MiB idle with these settings; ADR 0016).
 */
export const RELAY_ENVIRONMENT: Readonly<Record<string, string>> = {
  NODE_OPTIONS: RELAY_NODE_OPTIONS,
  MALLOC_ARENA_MAX: "2",
  MALLOC_MMAP_THRESHOLD_: "131072",
  MALLOC_TRIM_THRESHOLD_: "131072",
};

/** The environment the relay reads (only at its entry point). */
export const RelayEnv = z.object({
  EDGELOOP_SECRET: z.string({ error: "EDGELOOP_SECRET is not set (the HMAC key shared with the Worker)" }).min(16, "EDGELOOP_SECRET must be at least 16 characters"),
  EDGELOOP_WORKER_URL: z.url({ error: "EDGELOOP_WORKER_URL must be a URL" }).optional(),
  /** Set from the downward API in the relay Deployment: the lease holder's identity and namespace. */
  POD_NAME: z.string().min(1).optional(),
  POD_NAMESPACE: z.string().min(1).optional(),
  HOSTNAME: z.string().min(1).optional(),
});

/** The parseArgs shapes of the relay's flags. */
export const RELAY_OPTIONS = { ...Object.fromEntries(Object.keys(RelayFlags.shape).map((name) => [name, { type: "string" as const }])), "leader-elect": { type: "boolean" as const } };
export type RelayEnv = z.infer<typeof RelayEnv>;

/**
 * Splits the edge channels' flags (`--{name}-port`, `--{name}-host` for any name that is
 * not one of the relay's flags) out of argv: the relay learns the channels' names only
 * from the manifest.
 */
export function splitChannelFlags(argv: readonly string[]): SplitPortFlags {
  return splitPortFlags(argv, new Set(Object.keys(RELAY_OPTIONS)));
}

/** Combines flags, the channels' flags and environment; the error names the missing setting. */
export function relayOptions(flags: RelayFlags, env: RelayEnv, channels: Readonly<Record<string, NamedEndpointFlags>> = {}): RelayOptions | { readonly error: string } {
  const workerUrl = flags["worker-url"] ?? env.EDGELOOP_WORKER_URL;
  if (!workerUrl) return { error: "--worker-url (or EDGELOOP_WORKER_URL) is required" };
  return {
    workerUrl,
    secret: env.EDGELOOP_SECRET,
    ...(flags.kubeconfig ? { kubeconfigPath: flags.kubeconfig } : {}),
    concurrency: flags.concurrency,
    workerInFlight: flags["worker-in-flight"],
    workerKeepAliveSeconds: flags["worker-keep-alive-seconds"],
    maxRate: flags["max-rate"],
    resyncSeconds: flags["resync-seconds"],
    watchSilenceSeconds: flags["watch-silence-seconds"],
    manifestRefreshSeconds: flags["manifest-refresh-seconds"],
    outboxWaitSeconds: flags["outbox-wait-seconds"],
    opsPort: flags["ops-port"],
    opsHost: flags["ops-host"],
    ...(flags["front-port"] !== undefined && flags["tls-cert"] && flags["tls-key"]
      ? { front: { port: flags["front-port"], host: flags["front-host"], certFile: flags["tls-cert"], keyFile: flags["tls-key"] } }
      : {}),
    ...(flags["api-port"] !== undefined ? { api: { port: flags["api-port"], host: flags["api-host"] } } : {}),
    ...(Object.keys(channels).length > 0 ? { channels } : {}),
    logLevel: flags["log-level"],
    ...(flags["leader-elect"]
      ? {
          leaderElection: {
            name: flags["lease-name"],
            namespace: flags["lease-namespace"] ?? env.POD_NAMESPACE ?? "default",
            identity: env.POD_NAME ?? env.HOSTNAME ?? `relay-${process.pid}`,
            leaseDurationSeconds: flags["lease-duration-seconds"],
            retrySeconds: Math.max(1, Math.floor(flags["lease-duration-seconds"] / 5)),
          },
          // In a cluster (the Deployment sets both from the downward API): the leader labels its own pod.
          ...(env.POD_NAME && env.POD_NAMESPACE ? { leaderPod: { namespace: env.POD_NAMESPACE, name: env.POD_NAME } } : {}),
        }
      : {}),
  };
}
