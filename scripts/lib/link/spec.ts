/**
 * The link between the relay and the Worker as written on a command line:
 * `rtt=50ms,jitter=5ms,loss=0.5%,bandwidth=20mbit` (any subset), `none`, and for a running
 * stack `down`, `up` and the faults `5xx` and `reset`. Parsed once at the edge; a typo or an impossible value is an
 * error naming the field. Pure.
 */
import { z } from "zod";

/** How one link behaves; every figure is for the whole round trip or both directions. */
export interface LinkShape {
  /** Round-trip time: half of it is added to each direction. */
  readonly rttMs: number;
  /** Each chunk's delay varies by up to ± this (uniformly), never reordering bytes. */
  readonly jitterMs: number;
  /** The share of TCP segments (1,460 bytes) lost, 0..1; each loss costs its connection a retransmission timeout. */
  readonly loss: number;
  /** Bits per second each direction carries, shared by every connection; undefined: no limit. */
  readonly bitsPerSecond: number | undefined;
}

/** No shaping: the default. */
export const NO_SHAPE: LinkShape = { rttMs: 0, jitterMs: 0, loss: 0, bitsPerSecond: undefined };

/**
 * A Worker that answers but fails: `5xx`, every request answered 503 by something that is
 * not the Worker (as Cloudflare's edge answers for a Worker over its limits); `reset`,
 * every answer cut mid-body by a reset.
 */
export type LinkFault = "5xx" | "reset";

/** The faults, as `npm run link` takes them. */
export const LINK_FAULTS: readonly LinkFault[] = ["5xx", "reset"];

/** What `npm run link` may ask of a running stack. */
export type LinkCommand = { readonly kind: "shape"; readonly shape: LinkShape } | { readonly kind: "down" } | { readonly kind: "up" } | { readonly kind: "fault"; readonly fault: LinkFault };

/** A spec that could not be read: `field` is the key it names (or `spec`). */
export class LinkSpecError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.field = field;
  }
}

const FIELDS = ["rtt", "jitter", "loss", "bandwidth"] as const;
type Field = (typeof FIELDS)[number];

/** Whole or decimal milliseconds or seconds, at most one hour. */
const Duration = z
  .string()
  .regex(/^\d+(\.\d+)?(ms|s)$/, "a duration with its unit, e.g. 50ms or 0.2s")
  .transform((text) => (text.endsWith("ms") ? Number(text.slice(0, -2)) : Number(text.slice(0, -1)) * 1000))
  .refine((ms) => ms <= 3_600_000, "at most 1 hour");

/** A percentage below 100 (a link that loses everything is `down`). */
const Loss = z
  .string()
  .regex(/^\d+(\.\d+)?%$/, "a percentage, e.g. 0.5%")
  .transform((text) => Number(text.slice(0, -1)) / 100)
  .refine((share) => share < 1, "below 100% (a link that loses everything is `down`)");

const BANDWIDTH_UNITS: Readonly<Record<string, number>> = { kbit: 1e3, mbit: 1e6, gbit: 1e9 };

/** Bits per second, as tc writes them: 512kbit, 20mbit, 1gbit; at least 8 kbit. */
const Bandwidth = z
  .string()
  .regex(/^\d+(\.\d+)?(kbit|mbit|gbit)$/, "a rate with its unit, e.g. 512kbit, 20mbit or 1gbit")
  .transform((text) => {
    const unit = /(kbit|mbit|gbit)$/.exec(text)?.[1] ?? "kbit";
    return Number(text.slice(0, -unit.length)) * (BANDWIDTH_UNITS[unit] ?? 1e3);
  })
  .refine((bits) => bits >= 8_000, "at least 8kbit");

const PARSERS: Readonly<Record<Field, z.ZodType<number, string>>> = { rtt: Duration, jitter: Duration, loss: Loss, bandwidth: Bandwidth };

/**
 * Reads a link spec: `none`, or `key=value` pairs separated by commas, each key once.
 * Jitter may not exceed the RTT's half (a delay below zero is no delay).
 */
export function parseLinkSpec(text: string): LinkShape {
  const spec = text.trim();
  if (spec === "none" || spec === "") return NO_SHAPE;
  const seen = new Map<Field, number>();
  for (const part of spec.split(",")) {
    const [key = "", value, ...rest] = part.trim().split("=");
    if (!(FIELDS as readonly string[]).includes(key)) throw new LinkSpecError(key === "" ? "spec" : key, `not a field of a link (${FIELDS.join(", ")}; or none, down, up, ${LINK_FAULTS.join(", ")})`);
    const field = key as Field;
    if (value === undefined || rest.length > 0) throw new LinkSpecError(field, "write it as key=value");
    if (seen.has(field)) throw new LinkSpecError(field, "given twice");
    const parsed = PARSERS[field].safeParse(value);
    if (!parsed.success) throw new LinkSpecError(field, `${JSON.stringify(value)} is not ${parsed.error.issues[0]?.message ?? "valid"}`);
    seen.set(field, parsed.data);
  }
  const rttMs = seen.get("rtt") ?? 0;
  const jitterMs = seen.get("jitter") ?? 0;
  if (jitterMs > rttMs / 2) throw new LinkSpecError("jitter", `${jitterMs}ms is more than half the rtt (${rttMs}ms): each direction's delay would go below zero`);
  return { rttMs, jitterMs, loss: seen.get("loss") ?? 0, bitsPerSecond: seen.get("bandwidth") };
}

/** Reads what `npm run link` was given: `down`, `up`, or a spec. */
export function parseLinkCommand(text: string): LinkCommand {
  const word = text.trim();
  if (word === "down") return { kind: "down" };
  if (word === "up") return { kind: "up" };
  if ((LINK_FAULTS as readonly string[]).includes(word)) return { kind: "fault", fault: word as LinkFault };
  return { kind: "shape", shape: parseLinkSpec(word) };
}

/** The spec a shape is written as (`none` for no shaping). */
export function formatLinkShape(shape: LinkShape): string {
  const parts = [
    ...(shape.rttMs > 0 ? [`rtt=${shape.rttMs}ms`] : []),
    ...(shape.jitterMs > 0 ? [`jitter=${shape.jitterMs}ms`] : []),
    ...(shape.loss > 0 ? [`loss=${+(shape.loss * 100).toFixed(4)}%`] : []),
    ...(shape.bitsPerSecond !== undefined ? [`bandwidth=${formatBits(shape.bitsPerSecond)}`] : []),
  ];
  return parts.length === 0 ? "none" : parts.join(",");
}

function formatBits(bits: number): string {
  if (bits >= 1e9 && bits % 1e9 === 0) return `${bits / 1e9}gbit`;
  if (bits >= 1e6 && bits % 1e6 === 0) return `${bits / 1e6}mbit`;
  return `${bits / 1e3}kbit`;
}
