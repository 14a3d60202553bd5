/**
 * How many of an answer's creates (or deletes) the relay applies at once: a replica's pod
 * and Service, and the replicas of one call, do not depend on each other, and one after
 * another they made a POST of 10 replicas wait for 20 round trips to the API server.
 */
export const APPLY_CONCURRENCY = 16;
