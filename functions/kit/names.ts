/**
 * Names and label values of generated children, kept within Kubernetes' limits for any
 * valid parent name. A parent's name may be a 253-character DNS subdomain (dots
 * included); a child's name built from it must still be a DNS label (Services, and pod
 * names that become hostnames) and a label value carrying it at most 63 characters.
 */
import { isDns1035Label, isDns1123Label, isValidLabelValue } from "../../protocol/kube/names.ts";
import { shortHash } from "./hash.ts";

/** The longest DNS label (a Service name, a hostname) and the longest label value. */
export const DNS_LABEL_MAX = 63;

/** Characters of the hash that keeps a shortened name unique to its input. */
const HASH_LENGTH = 8;

/**
 * Which DNS label rule a name must satisfy: `dns1123` (most objects, hostnames) or
 * `dns1035` (Service names: it must also start with a letter).
 */
export type LabelRule = "dns1123" | "dns1035";

/** Whether `name` is a DNS label under `rule` (at most 63 characters). */
function isDnsLabel(name: string, rule: LabelRule): boolean {
  return (rule === "dns1035" ? isDns1035Label(name) : isDns1123Label(name)).length === 0;
}

/**
 * `<base>-<suffix>` (or `base` when `suffix` is empty) when that is already a DNS label of
 * at most `max` characters, so the usual names stay as users know them; otherwise
 * `<stem>-<hash>-<suffix>`, where the stem is the start of `base` made DNS-safe and cut
 * to fit and the hash covers the whole input. Deterministic (a replayed snapshot names the
 * same child), unique per input, at most `max` (≤ 63) characters, never ending in `-`,
 * and the suffix stays readable. `suffix` is ours (a worker type, a short hash) and must
 * itself be a DNS label short enough to leave room for the hash.
 */
export function boundedName(base: string, suffix: string, max = DNS_LABEL_MAX, rule: LabelRule = "dns1123"): string {
  const limit = Math.min(max, DNS_LABEL_MAX);
  const plain = suffix === "" ? base : `${base}-${suffix}`;
  if (plain.length <= limit && isDnsLabel(plain, rule)) return plain;
  if (suffix !== "" && isDns1123Label(suffix).length > 0) throw new RangeError(`boundedName: suffix "${suffix}" is not a DNS label`);
  const tail = `-${shortHash([base, suffix], HASH_LENGTH)}${suffix === "" ? "" : `-${suffix}`}`;
  // At least one character of stem: it is what makes a dns1035 name start with a letter.
  if (limit - tail.length < 1) throw new RangeError(`boundedName: suffix "${suffix}" leaves no room in ${limit} characters`);
  let stem = base.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+/, "");
  // Kubernetes has no rule to fix a name that starts with a digit; any fixed letter does.
  if (rule === "dns1035" && !/^[a-z]/.test(stem)) stem = `x${stem}`;
  stem = stem.slice(0, limit - tail.length).replace(/-+$/, "");
  return stem === "" ? tail.slice(1) : `${stem}${tail}`;
}

/**
 * `value` when it is a valid label value; otherwise `<stem>-<hash>`, at most 63
 * characters, the stem being its start cut to fit. Deterministic and unique per input, so
 * a selector built with the same function still matches what it labelled.
 */
export function boundedLabelValue(value: string): string {
  if (isValidLabelValue(value).length === 0) return value;
  const tail = `-${shortHash(value, HASH_LENGTH)}`;
  const stem = value
    .replace(/[^-A-Za-z0-9_.]+/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, DNS_LABEL_MAX - tail.length)
    .replace(/[^A-Za-z0-9]+$/, "");
  return stem === "" ? tail.slice(1) : `${stem}${tail}`;
}
