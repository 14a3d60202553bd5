/**
 * A stand-in for DI-engine's coordinator process in the NerveX benchmark: it makes each
 * replicas call it is sent (over IPC) with the DI-engine client and answers the status
 * and the time the call took, measured in this process. The benchmark's own process is
 * the sim's, whose event loop would otherwise delay reading the reply.
 */
import { call } from "../support/di-engine-client.ts";

/** A call to make. */
export interface CoordinatorCall {
  readonly server: string;
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
}

/** Its outcome. */
export interface CoordinatorAnswer {
  readonly status: number;
  readonly success: boolean;
  readonly ms: number;
  readonly body: string;
}

process.on("message", (message: CoordinatorCall) => {
  const started = performance.now();
  call(message.server, message.method, message.path, message.body).then(
    (reply) => process.send?.({ status: reply.status, success: reply.body.success === true, ms: performance.now() - started, body: JSON.stringify(reply.body).slice(0, 500) } satisfies CoordinatorAnswer),
    (error: unknown) => process.send?.({ status: 0, success: false, ms: performance.now() - started, body: String(error) } satisfies CoordinatorAnswer),
  );
});
process.on("disconnect", () => process.exit(0));
