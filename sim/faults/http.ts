/**
 * The faults over HTTP, under `/sim/faults` (no Kubernetes path), so that a person or a
 * tool in another process can inject them into a running sim (`npm start`):
 *
 * - `GET /sim/faults`: the rules in force, the last 100 requests they selected, counts
 * - `POST /sim/faults/rules` (a rule) → `201 {"id": N}`; `DELETE /sim/faults/rules/N`
 * - `POST /sim/faults/gone` `{"rounds": R, "intervalMs": I}`: a 410 storm (answered at once)
 * - `PUT /sim/faults/shaping` `{"duplicate": p, "reorder": p}`; `DELETE /sim/faults/shaping`
 * - `DELETE /sim/faults`: everything off
 *
 * Bodies are checked with zod; a bad one is a 400 naming the field.
 */
import { z } from "zod";
import { ApiError } from "../contract.ts";
import { badRequest, methodNotAllowed } from "../pipeline/errors.ts";
import type { SimFaults } from "./faults.ts";
import { FaultRule } from "./rules.ts";
import { WatchShaping } from "./watch-shaper.ts";

const Storm = z.object({ rounds: z.number().int().min(1).max(1_000), intervalMs: z.number().int().min(1).max(600_000) });

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw badRequest(`invalid fault: ${issue ? `${issue.path.join(".") || "body"}: ${issue.message}` : "bad body"}`);
}

/** Answers a request under `/sim/faults` (`segments` after `sim`, `faults`); `body` reads the parsed JSON body. */
export async function serveFaults(faults: SimFaults, method: string, segments: readonly string[], body: () => Promise<unknown>): Promise<{ status: number; body: unknown }> {
  const [part, id, extra] = segments;
  if (extra !== undefined) throw new ApiError(404, "NotFound", "no such fault resource");
  if (part === undefined) {
    if (method === "GET") return { status: 200, body: { rules: faults.rules(), journal: faults.journal().slice(-100), shaped: faults.shaped, goneSent: faults.goneSent } };
    if (method === "DELETE") {
      faults.clear();
      return { status: 200, body: { cleared: true } };
    }
    throw methodNotAllowed();
  }
  if (part === "rules") {
    if (id === undefined && method === "POST") return { status: 201, body: { id: faults.add(parse(FaultRule, await body())) } };
    if (id !== undefined && method === "DELETE") {
      const number = Number(id);
      if (!faults.rules().some((rule) => rule.id === number)) throw new ApiError(404, "NotFound", `no fault rule ${id}`);
      faults.remove(number);
      return { status: 200, body: { removed: number } };
    }
    throw methodNotAllowed();
  }
  if (part === "gone" && id === undefined) {
    if (method !== "POST") throw methodNotAllowed();
    void faults.goneStorm(parse(Storm, await body()));
    return { status: 202, body: { started: true } };
  }
  if (part === "shaping" && id === undefined) {
    if (method === "PUT") {
      faults.shapeWatches(parse(WatchShaping, await body()));
      return { status: 200, body: { shaping: true } };
    }
    if (method === "DELETE") {
      faults.stopShaping();
      return { status: 200, body: { shaping: false } };
    }
    throw methodNotAllowed();
  }
  throw new ApiError(404, "NotFound", "no such fault resource");
}
