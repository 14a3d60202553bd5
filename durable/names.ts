/**
 * How Durable Object instances are named: keyed so that no one object becomes a global
 * lock (the ledger per namespace, the replay guard in 16 shards). Shared by the Worker
 * and the tools that inspect objects, so the names are spelled in one place.
 */

/** The ledger of a namespace; cluster-scoped keys share one. */
export function ledgerObjectName(namespace: string | undefined): string {
  return namespace ? `ns:${namespace}` : "cluster";
}

/** The one outbox of a Worker: the relay drains it with one cursor. */
export const OUTBOX_OBJECT_NAME = "outbox";

/** The replay-guard shard of a signature header (`sha256=<hex>`): by its first hex digit. */
export function replayShardName(signatureHeader: string): string {
  return `shard:${signatureHeader.charAt("sha256=".length)}`;
}

/** The object of each Durable Object namespace the readiness route reads (created empty on first read, then reused). */
export const READINESS_OBJECT_NAME = "edgeloop-readiness";
