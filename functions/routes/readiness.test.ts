import assert from "node:assert/strict";
import { test } from "node:test";
import { HttpError } from "../http/errors.ts";
import { readinessRoute } from "./readiness.ts";

test("every Durable Object namespace answering: ready, each named with its storage's incarnation (issue 28, finding 7c)", async () => {
  const answer = await readinessRoute({ durableNamespaces: () => [{ binding: "LEDGER", ready: async () => "a" }, { binding: "FAMILY_QUEUE", ready: async () => "b" }] }, 1_000);
  assert.deepEqual(answer, { ok: true, durableObjects: { LEDGER: { incarnation: "a" }, FAMILY_QUEUE: { incarnation: "b" } } });
});

test("a Durable Object namespace that fails or hangs: 503 naming its binding (issue 28, finding 7c)", async () => {
  const failing = readinessRoute({ durableNamespaces: () => [{ binding: "LEDGER", ready: async () => "a" }, { binding: "FAMILY_QUEUE", ready: () => Promise.reject(new Error("Durable Object reset because its code was updated")) }] }, 1_000);
  await assert.rejects(failing, (error: unknown) => error instanceof HttpError && error.status === 503 && error.path === "durableObjects.FAMILY_QUEUE" && error.message.includes("reset"));
  const hanging = readinessRoute({ durableNamespaces: () => [{ binding: "OUTBOX", ready: () => new Promise<string>(() => undefined) }] }, 50);
  await assert.rejects(hanging, (error: unknown) => error instanceof HttpError && error.status === 503 && error.path === "durableObjects.OUTBOX" && error.message.includes("50 ms"));
});
