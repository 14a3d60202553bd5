/**
 * The name of the gang scheduler's one `GangQueue` object: the whole cluster's nodes are
 * one pool. ADR 0012 says how the queue would shard (one object per node pool) when one
 * object is not enough.
 */
export const GANG_QUEUE_OBJECT_NAME = "cluster";
