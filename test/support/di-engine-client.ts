/**
 * The replicas API client as DI-engine's coordinator is: not ours, so the tests call the
 * API exactly the way it does. It reads `KUBERNETES_SERVER_URL` as `host:port` (no
 * scheme) and speaks plain HTTP; every body is a JSON string sent without a
 * `Content-Type`, `{}` with GET and DELETE too; any non-2xx is an error; a request whose
 * connection fails is retried, up to five times.
 */
import { request } from "node:http";

/** What the coordinator reads from its environment. */
export interface CoordinatorEnv {
  /** `host:port`, no scheme. */
  readonly KUBERNETES_SERVER_URL: string;
  readonly KUBERNETES_POD_NAMESPACE: string;
  readonly KUBERNETES_POD_NAME: string;
}

/** A reply: the status and the parsed envelope. */
export interface ClientReply {
  readonly status: number;
  readonly body: { success?: boolean; code?: number; message?: string; data?: unknown } & Record<string, unknown>;
  /** How many attempts it took (1 without retries). */
  readonly attempts: number;
}

const ATTEMPTS = 5;

/** The coordinator's env vars from its pod spec (the first container that has them). */
export function coordinatorEnv(pod: { spec?: unknown }): CoordinatorEnv {
  const containers = ((pod.spec as { containers?: { env?: { name: string; value?: string }[] }[] } | undefined)?.containers ?? []);
  const env = Object.fromEntries(containers.flatMap((c) => c.env ?? []).map((e) => [e.name, e.value ?? ""]));
  const read = (name: keyof CoordinatorEnv): string => {
    const value = env[name];
    if (!value) throw new Error(`the coordinator pod has no ${name}`);
    return value;
  };
  return { KUBERNETES_SERVER_URL: read("KUBERNETES_SERVER_URL"), KUBERNETES_POD_NAMESPACE: read("KUBERNETES_POD_NAMESPACE"), KUBERNETES_POD_NAME: read("KUBERNETES_POD_NAME") };
}

/**
 * One call, as the coordinator makes it: `http://<host:port><path>`, the body as JSON
 * text (`{}` when none), no Content-Type. `dropFirst` cuts the first attempt's
 * connection right after the request was sent, before any reply: a retry follows.
 */
export async function call(server: string, method: string, path: string, body: unknown = {}, options: { dropFirst?: boolean } = {}): Promise<ClientReply> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      const reply = await once(server, method, path, JSON.stringify(body), options.dropFirst === true && attempt === 1);
      return { ...reply, attempts: attempt };
    } catch (error) {
      lastError = error;
    }
  }
  throw new Error(`${method} ${path}: connection failed ${ATTEMPTS} times: ${String(lastError)}`);
}

function once(server: string, method: string, path: string, text: string, drop: boolean): Promise<Omit<ClientReply, "attempts">> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`http://${server}${path}`, { method, headers: { "content-length": Buffer.byteLength(text) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        try {
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as ClientReply["body"] });
        } catch (error) {
          reject(error as Error);
        }
      });
      response.on("error", reject);
    });
    outgoing.on("error", reject);
    outgoing.end(text, () => {
      // The request is on the wire; the client loses its connection before the reply.
      if (drop) outgoing.destroy(new Error("connection reset (test)"));
    });
  });
}
