/** The sim's command-line settings, shared by `npm run sim` and `npm start`. */
import { z } from "zod";
import { isDns1123Subdomain } from "../protocol/kube/names.ts";

/** `--nodes`: a count (`sim-node-1..N`) or a comma-separated list of node names. */
export const NodesFlag = z.string().transform((text, ctx): number | string[] => {
  if (/^\d+$/.test(text)) {
    const count = Number(text);
    if (count <= 5000) return count;
    ctx.addIssue({ code: "custom", message: "at most 5000 nodes" });
    return z.NEVER;
  }
  const names = text.split(",").map((n) => n.trim()).filter((n) => n.length > 0);
  // A Node's name is a DNS-1123 subdomain.
  const bad = names.find((n) => isDns1123Subdomain(n).length > 0);
  if (names.length === 0 || bad !== undefined) {
    ctx.addIssue({ code: "custom", message: `expected a count or node names separated by commas${bad ? ` (bad name "${bad}")` : ""}` });
    return z.NEVER;
  }
  return [...new Set(names)];
});

/** `--node-gpus`: `nvidia.com/gpu` on every node the sim creates (0: none). */
export const NodeGpusFlag = z.coerce.number().int().min(0).max(1024);

/** The nodes `npm start` creates: the node names the upstream Sedna examples pin their pods to. */
export const DEFAULT_START_NODES = "cloud,edge1,edge2,edge-node";

/**
 * `--default-not-ready-toleration-seconds` / `--default-unreachable-toleration-seconds`:
 * the tolerationSeconds DefaultTolerationSeconds gives pods, as kube-apiserver's flags of
 * those names (int64 seconds, default 300).
 */
export const TolerationSecondsFlag = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
