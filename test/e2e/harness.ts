/** End-to-end test support: a stack on ephemeral ports, and waiting for cluster state. */
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeObject, TypeRef } from "../../protocol/index.ts";
import { startStack, type Stack, type StackOptions } from "../../scripts/lib/stack.ts";
import { waitFor } from "../worker/client.ts";

export { waitFor };

/** The test controllers (mirror, journal). */
export const FIXTURE_CONTROLLERS = join(import.meta.dirname, "../fixtures/controllers");

/** How long a stack may take to start before the test file gives up (it takes seconds). */
const START_DEADLINE_MS = 120_000;

/**
 * Starts a stack in a temporary folder; `stop()` removes it. A start that hangs (once in
 * CI a relay waited forever for a Worker whose workerd had not come up) fails the test
 * file, naming the step it hung at, and ends its process: a `before` hook has no
 * timeout of its own, and the hung start keeps the event loop alive.
 */
export async function testStack(options: Partial<StackOptions> = {}): Promise<Stack & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-e2e-"));
  let step = "nothing yet";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`the test stack did not start within ${START_DEADLINE_MS / 1000} s; last step: ${step}`));
      setTimeout(() => process.exit(1), 5_000);
    }, START_DEADLINE_MS);
  });
  const starting = startStack({
    kubeconfigPath: join(dir, "kubeconfig"),
    persistDir: join(dir, "do"),
    extraControllerDirs: [FIXTURE_CONTROLLERS],
    ...options,
    progress: (message) => {
      step = message;
      options.progress?.(message);
    },
  });
  const stack = await Promise.race([starting, deadline]).finally(() => clearTimeout(timer));
  const stop = stack.stop.bind(stack);
  return Object.assign(stack, {
    dir,
    async stop(): Promise<void> {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

/** Waits until `find` returns an object satisfying `ok`. */
export async function waitForObject(stack: Stack, type: TypeRef, namespace: string | undefined, name: string, ok: (o: KubeObject) => boolean = () => true, timeoutMs = 15_000): Promise<KubeObject> {
  return waitFor(`${type.kind} ${name}`, async () => {
    const found = await stack.sim.cluster.find(type, namespace, name);
    return found && ok(found) ? found : undefined;
  }, timeoutMs);
}

/** Waits until no object of `name` exists. */
export async function waitForGone(stack: Stack, type: TypeRef, namespace: string | undefined, name: string, timeoutMs = 15_000): Promise<void> {
  await waitFor(`${type.kind} ${name} to be gone`, async () => ((await stack.sim.cluster.find(type, namespace, name)) ? undefined : true), timeoutMs);
}

/** Calls the relay's TLS front as an in-cluster client would (trusting the front's CA). */
export function frontCall(stack: Stack, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const front = stack.front;
  if (!front) throw new Error("the stack serves no front");
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = httpsRequest(`${front.url}${path}`, { method, ca: front.caPem, headers: text === undefined ? {} : { "content-type": "application/json" } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "null") as unknown }));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(text);
  });
}
