/** Waiting for a relay to have no work in hand, read from its `/metrics`. */
import { waitFor } from "../../cli/wait.ts";

/** The relay's work in hand in its `/metrics` text: keys queued and keys in flight (NaN when a gauge is missing). */
function workInHand(metrics: string): { queued: number; inFlight: number } {
  const gauge = (name: string): number => Number(new RegExp(`^${name} (\\d+)$`, "m").exec(metrics)?.[1] ?? NaN);
  return { queued: gauge("edgeloop_queue_depth"), inFlight: gauge("edgeloop_queue_in_flight") };
}

/**
 * Waits until the relay serving ops at `relay.opsUrl` has nothing queued nor in flight:
 * every event it has seen so far is reconciled and applied.
 */
export async function relayIdle(relay: { readonly opsUrl: string }): Promise<void> {
  await waitFor("the relay to be idle (keys queued and in flight)", async () => workInHand(await (await fetch(`${relay.opsUrl}/metrics`)).text()), (work) => work.queued === 0 && work.inFlight === 0);
}
