/**
 * Every Durable Object the limits bench reads the meters of (`durable/usage.ts`): the
 * floor's (the Outbox, the 16 replay-guard shards, the ledgers of the namespaces in play)
 * and the families' (the gang queue, Sedna's edge channel), and each binding's readiness
 * object, each by binding and name.
 */
import type { DurableUsage, UsageContract } from "../../../durable/contracts.ts";
import type { DurableObjectDeclaration } from "../../../durable/declaration.ts";
import { ledgerObjectName, OUTBOX_OBJECT_NAME, READINESS_OBJECT_NAME, replayShardName } from "../../../durable/names.ts";
import { LEDGER, OUTBOX, REPLAY } from "../../../durable/table.ts";
import { GANG_QUEUE } from "../../../functions/controllers/gang/bindings.ts";
import { GANG_QUEUE_OBJECT_NAME } from "../../../functions/controllers/gang/queue-name.ts";
import { SEDNA_EDGE, SEDNA_EDGE_OBJECT_NAME } from "../../../functions/controllers/sedna/edge/bindings.ts";
import type { RunningWorker } from "../../../scripts/lib/worker.ts";

/** One object: `BINDING/name`. */
export interface MeteredObject {
  readonly id: string;
  read(): Promise<DurableUsage>;
}

/** The objects of the floor and the families, the ledgers of `namespaces` among them. */
export async function meteredObjects(worker: RunningWorker, namespaces: readonly string[]): Promise<MeteredObject[]> {
  const named: [DurableObjectDeclaration, string][] = [
    [OUTBOX, OUTBOX_OBJECT_NAME],
    ...Array.from({ length: 16 }, (_, i): [DurableObjectDeclaration, string] => [REPLAY, replayShardName(`sha256=${i.toString(16)}`)]),
    ...[undefined, ...namespaces].map((ns): [DurableObjectDeclaration, string] => [LEDGER, ledgerObjectName(ns)]),
    [GANG_QUEUE, GANG_QUEUE_OBJECT_NAME],
    [SEDNA_EDGE, SEDNA_EDGE_OBJECT_NAME],
    // The object of each binding that the readiness route reads.
    ...[OUTBOX, REPLAY, LEDGER, GANG_QUEUE, SEDNA_EDGE].map((declaration): [DurableObjectDeclaration, string] => [declaration, READINESS_OBJECT_NAME]),
  ];
  return Promise.all(
    named.map(async ([declaration, name]) => {
      const stub = (await worker.durableObject(declaration, name)) as unknown as UsageContract;
      return { id: `${declaration.binding}/${name}`, read: () => stub.usage() };
    }),
  );
}

/** Every object's figures now, by id. */
export async function readAll(objects: readonly MeteredObject[]): Promise<Map<string, DurableUsage>> {
  return new Map(await Promise.all(objects.map(async (object) => [object.id, await object.read()] as const)));
}

/** The requests every object has served so far, summed. */
export async function requestsSoFar(objects: readonly MeteredObject[]): Promise<number> {
  let total = 0;
  for (const usage of (await readAll(objects)).values()) total += usage.requests;
  return total;
}
