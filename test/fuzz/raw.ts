/**
 * Sends raw bytes over a fresh TCP (or TLS) connection and reads what comes back: every
 * response status line, until the server closes the connection or stays silent for a
 * while. For malformed framing, which no HTTP client library writes.
 */
import { connect as netConnect, isIP, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import type { Outcome } from "./counting.ts";
import type { Endpoint } from "./send.ts";

/** What came back on the connection. */
export interface RawAnswer {
  /** Every status of a response on the connection, in order (more than one: the server read more than one request). */
  readonly statuses: readonly number[];
  /** How the connection ended: closed (or reset) by the server, or still open after the silence. */
  readonly ended: "closed" | "reset" | "silent";
  /** The start of what came back (for examples). */
  readonly text: string;
}

/** How long the server may stay silent, after the bytes are written, before the connection is given up. */
export const SILENCE_MS = 2_000;
/** How long connecting may take. */
const CONNECT_MS = 10_000;
const STATUS_LINE = /(?:^|\r\n)HTTP\/\d\.\d (\d{3})[^\r\n]*\r\n/g;

/** Writes `bytes` to `endpoint` and collects the answer; never rejects (a connection refused is `reset` with no status). */
export function sendBytes(endpoint: Endpoint, bytes: Uint8Array, silenceMs = SILENCE_MS): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const url = new URL(endpoint.origin);
    const port = Number(url.port);
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const socket: Socket =
      url.protocol === "https:" ? tlsConnect({ host, port, ...(endpoint.caPem ? { ca: endpoint.caPem } : {}), ...(isIP(host) === 0 ? { servername: host } : {}) }) : netConnect({ host, port });
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    let silence: NodeJS.Timeout | undefined;
    const finish = (ended: RawAnswer["ended"]): void => {
      if (settled) return;
      settled = true;
      clearTimeout(silence);
      clearTimeout(connecting);
      socket.destroy();
      const text = Buffer.concat(chunks).toString("latin1");
      resolve({ statuses: [...text.matchAll(STATUS_LINE)].map((m) => Number(m[1])), ended, text: text.slice(0, 2048) });
    };
    const quietFor = (): void => {
      clearTimeout(silence);
      silence = setTimeout(() => finish("silent"), silenceMs);
    };
    const connecting = setTimeout(() => finish("silent"), CONNECT_MS);
    socket.once(url.protocol === "https:" ? "secureConnect" : "connect", () => {
      clearTimeout(connecting);
      socket.write(bytes, () => quietFor());
      quietFor();
    });
    socket.on("data", (chunk: Buffer) => {
      // Keeps at most 64 KiB: enough for every status line of a few answers.
      if (received < 65_536) chunks.push(chunk);
      received += chunk.length;
      quietFor();
    });
    socket.on("end", () => finish("closed"));
    socket.on("close", () => finish("closed"));
    socket.on("error", () => finish("reset"));
  });
}

/**
 * What a framing answer counts as: the worst status the connection carried (a 5xx
 * anywhere is a 5xx); no status and the connection closed or reset by the server is a
 * refusal by closing (RFC 9112 §9.6 allows it); no status and silence is a hang (a
 * crash), unless the case declared a body still to come, which a server may wait for.
 */
export function framingOutcome(answer: RawAnswer, mayWait: boolean): Outcome {
  // A 1xx is interim (100 Continue): the final answer is what counts.
  const final = answer.statuses.filter((s) => s >= 200);
  const worst = final.find((s) => s >= 500 && s !== 501) ?? final[0];
  if (worst !== undefined) return { kind: "status", status: worst };
  if (answer.ended !== "silent") return { kind: "closed", reason: answer.ended };
  return mayWait ? { kind: "closed", reason: "waits for the declared body" } : { kind: "crash", reason: `no answer within ${SILENCE_MS} ms of silence, connection held open` };
}
