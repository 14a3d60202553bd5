/**
 * The replicas API called as a NerveX coordinator calls it in the chaos rows: a POST for
 * more collectors, sent again (after 500 ms) on a failed connection or a non-2xx answer
 * until a 200 or the deadline, as DI-engine's coordinator retries a request it believes
 * lost. On the sim every answer is recorded in the ledger: the 200's URLs must name live pods.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { call } from "../support/di-engine-client.ts";
import type { Ledger } from "./ledger.ts";
import { NAMESPACE, REPLICAS_JOB } from "./workload.ts";

/** How a POST went: each attempt's outcome (a status or `conn`), and the URLs of the 200, if one came. */
export interface ReplicasPost {
  readonly attempts: readonly string[];
  readonly urls: readonly string[] | undefined;
}

const RETRY_PAUSE_MS = 500;

/**
 * POSTs `collectors` more collectors of the replicas job to `server` (`host:port`) until a
 * 200 or `deadlineMs` passes; records the outcome in `ledger` when there is one (the sim).
 */
export async function postCollectors(server: string, collectors: number, ledger: Ledger | undefined, deadlineMs: number): Promise<ReplicasPost> {
  const body = { namespace: NAMESPACE, coordinator: `${REPLICAS_JOB}-coordinator`, collectors: { replicas: collectors } };
  const attempts: string[] = [];
  const until = performance.now() + deadlineMs;
  while (performance.now() < until) {
    try {
      const reply = await call(server, "POST", "/v1alpha1/replicas", body);
      attempts.push(String(reply.status));
      const data = reply.body.data as { collectors?: unknown } | undefined;
      if (reply.status === 200 && Array.isArray(data?.collectors)) {
        const urls = data.collectors.map(String);
        ledger?.reply(REPLICAS_JOB, "collector", collectors, urls);
        return { attempts, urls };
      }
    } catch {
      attempts.push("conn");
    }
    await sleep(RETRY_PAUSE_MS);
  }
  // No reply: nothing the client was told exists, but what it asked for still counts against what was created.
  ledger?.reply(REPLICAS_JOB, "collector", collectors, []);
  return { attempts, urls: undefined };
}

/** `503, conn, 200` (repeats folded: `conn×4`). */
export function describeAttempts(attempts: readonly string[]): string {
  const folded: string[] = [];
  let last = "";
  let times = 0;
  for (const attempt of [...attempts, ""]) {
    if (attempt === last) {
      times += 1;
      continue;
    }
    if (last) folded.push(times > 1 ? `${last}×${times}` : last);
    last = attempt;
    times = 1;
  }
  return folded.join(", ");
}
