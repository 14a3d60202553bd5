/** The labels upstream Sedna puts on every child of a Sedna object. */
import { boundedLabelValue } from "../../kit/names.ts";

/** The label prefix of a Sedna kind's children: `jointinferenceservice.sedna.io`. */
export function labelPrefix(kind: string): string {
  return `${kind.toLowerCase()}.sedna.io`;
}

/**
 * The labels every child of a Sedna object carries (upstream's GenerateLabels plus the
 * worker type): `<kind>.sedna.io/name`, `/uid`, `/worker-type`. The name is the parent's
 * as upstream's, unless it is longer than a label value may be (63): then its start and a
 * hash (`boundedLabelValue`). Selectors are built with this same function, so they match;
 * the uid label tells parents apart in any case.
 */
export function workerLabels(kind: string, name: string, uid: string, workerType: string): Record<string, string> {
  const prefix = labelPrefix(kind);
  return { [`${prefix}/name`]: boundedLabelValue(name), [`${prefix}/uid`]: uid, [`${prefix}/worker-type`]: workerType };
}
