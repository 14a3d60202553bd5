/** The labels upstream Sedna puts on every child of a Sedna object. */

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
