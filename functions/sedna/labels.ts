/** Label carrying the hash of the spec a child was built from (tells old children from new). */
export const SPEC_HASH_LABEL = "edgeloop.dev/spec-hash";

/** Label naming a pod's worker slot in its job (`aggregation`, `train-0`, ...). */
export const WORKER_SLOT_LABEL = "edgeloop.dev/worker";

/** The label prefix of a Sedna kind's children: `jointinferenceservice.sedna.io`. */
export function labelPrefix(kind: string): string {
  return `${kind.toLowerCase()}.sedna.io`;
}

/**
 * The labels every child of a Sedna object carries (upstream's GenerateLabels plus the
 * worker type): `<kind>.sedna.io/name`, `/uid`, `/worker-type`.
 */
export function workerLabels(kind: string, name: string, uid: string, workerType: string): Record<string, string> {
  const prefix = labelPrefix(kind);
  return { [`${prefix}/name`]: name, [`${prefix}/uid`]: uid, [`${prefix}/worker-type`]: workerType };
}
