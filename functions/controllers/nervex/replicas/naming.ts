/**
 * Names of the pods a request creates: `replicaName(job, type, suffix)` with a 5-character
 * lowercase alphanumeric suffix (as upstream's random one) derived from the request's id
 * and a counter, so a handler stays pure and the same request names the same pods. A name
 * already taken in the namespace (a pod or a Service), or earlier in the same request, is
 * skipped for the next counter value.
 */
import { shortHash } from "../../../kit/hash.ts";
import type { ReplicaType } from "../labels.ts";
import { replicaName } from "../names.ts";

/** Characters of a generated suffix. */
export const SUFFIX_LENGTH = 5;

/** Hands out fresh names for one request. */
export interface NameSource {
  next(type: ReplicaType): string;
}

/** A name source seeded by `seed` (the request id) for job `jobName`, avoiding `taken`. */
export function nameSource(seed: string, jobName: string, taken: Iterable<string>): NameSource {
  const used = new Set(taken);
  let counter = 0;
  return {
    next(type: ReplicaType): string {
      for (;;) {
        const name = replicaName(jobName, type, shortHash([seed, counter], SUFFIX_LENGTH));
        counter += 1;
        if (!used.has(name)) {
          used.add(name);
          return name;
        }
      }
    },
  };
}
