/**
 * Bounds on what a client may hold of a Node HTTP server (the relay's fronts and channel
 * servers, the sim): Node's defaults let a client that sends its headers or body a byte at
 * a time keep a connection 90–300 s (headers 60 s and requests 300 s, checked every 30 s),
 * with no cap on how many (issue 28). One set of numbers for every server; tests shorten them.
 */
import type { Server, ServerOptions } from "node:http";

/** Timeouts and the connection cap of one server. */
export interface ConnectionLimits {
  /** From a request's first byte to the end of its headers (Node: `headersTimeout`); then 408 and closed. */
  readonly headersTimeoutMs: number;
  /** From a request's first byte to the end of its body (Node: `requestTimeout`); then 408 and closed. Not the response: watches and long polls stay open. */
  readonly requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  readonly keepAliveTimeoutMs: number;
  /** How often the two timeouts above are checked (Node's default, 30 s, adds up to that much to each). */
  readonly checkIntervalMs: number;
  /** Open connections at most; one more is closed at once (Node: `maxConnections`). */
  readonly maxConnections: number;
}

/**
 * The defaults: headers within 10 s and a request (up to the 8 MiB body limit) within 60 s,
 * as kube-apiserver's `--request-timeout` of 1 m for its own requests; 4,096 connections.
 */
export const CONNECTION_LIMITS: ConnectionLimits = { headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000, checkIntervalMs: 1_000, maxConnections: 4_096 };

/** The options of `http.createServer` / `https.createServer` that carry `limits` (the connection cap is set on the server: {@link capConnections}). */
export function serverLimits(limits: ConnectionLimits = CONNECTION_LIMITS): ServerOptions {
  return { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, keepAliveTimeout: limits.keepAliveTimeoutMs, connectionsCheckingInterval: limits.checkIntervalMs };
}

/** Caps `server`'s open connections at `limits.maxConnections` and returns it. */
export function capConnections<S extends Pick<Server, "maxConnections">>(server: S, limits: ConnectionLimits = CONNECTION_LIMITS): S {
  server.maxConnections = limits.maxConnections;
  return server;
}
