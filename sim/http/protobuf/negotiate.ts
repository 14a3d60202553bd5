/**
 * Response content negotiation, as the API server does it: the client's most preferred
 * media type in Accept (by q, then order) that the server can produce for this request;
 * 406 NotAcceptable when there is none.
 */
import { ApiError } from "../../contract.ts";

/** The Kubernetes protobuf media type. */
export const PROTOBUF = "application/vnd.kubernetes.protobuf";

/** How a response is encoded. */
export type Encoding = "json" | "protobuf";

interface MediaRange {
  readonly type: string;
  readonly params: ReadonlyMap<string, string>;
  readonly q: number;
}

function parseAccept(accept: string): MediaRange[] {
  const ranges = accept
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part): MediaRange => {
      const [type = "", ...rest] = part.split(";").map((s) => s.trim());
      const params = new Map(rest.map((p) => p.split("=").map((s) => s.trim()) as [string, string]).map(([k, v = ""]) => [k.toLowerCase(), v] as [string, string]));
      const q = params.has("q") ? Number(params.get("q")) : 1;
      return { type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 0 };
    });
  // Array.prototype.sort is stable: equal q keeps the client's order.
  return ranges.filter((r) => r.q > 0).sort((a, b) => b.q - a.q);
}

/** What one media range asks for, if the server can produce it. */
function encodingFor(range: MediaRange, protobuf: boolean): Encoding | undefined {
  // The sim writes JSON where YAML is asked (it always has); as=Table and the like are JSON forms.
  if (range.type === "*/*" || range.type === "application/*" || range.type === "application/json" || range.type === "application/yaml") return "json";
  // A Table or PartialObjectMetadata in protobuf is not something the sim can write.
  if (range.type === PROTOBUF && protobuf && !range.params.has("as")) return "protobuf";
  return undefined;
}

/**
 * The encoding of the response to a request with this Accept header. `protobuf` says
 * whether the sim can write this response in protobuf (a kind it has a definition for,
 * not a watch stream).
 */
export function negotiate(accept: string | undefined, protobuf: boolean): Encoding {
  if (accept === undefined || accept.trim() === "") return "json";
  for (const range of parseAccept(accept)) {
    const encoding = encodingFor(range, protobuf);
    if (encoding) return encoding;
  }
  const accepted = ["application/json", "application/yaml", ...(protobuf ? [PROTOBUF] : [])];
  throw new ApiError(406, "NotAcceptable", `only the following media types are accepted: ${accepted.join(", ")}`);
}
