/**
 * The edge channels the controllers declare (ADR 0028), read in Node from the same
 * registry the Worker builds its manifest from: a local stack chooses each channel's port
 * before the relay starts (and keeps it across relay restarts), as it does the API port.
 */
import type { ChannelSpec } from "../../protocol/index.ts";
import { createRegistry } from "../../functions/registry.ts";
import { freePort } from "../../cli/ports.ts";
import { loadControllers } from "./controllers.ts";

/** Every channel the controllers (and those of `extraDirs`) declare, defaults applied. */
export async function declaredChannels(extraDirs: readonly string[] = []): Promise<ChannelSpec[]> {
  const manifest = createRegistry(await loadControllers(extraDirs)).manifest;
  return manifest.controllers.flatMap((controller) => controller.channels);
}

/** A channel's name, port and where a peer on this machine dials it. */
export interface LocalChannel {
  readonly spec: ChannelSpec;
  readonly port: number;
  /** `127.0.0.1:<port>`. */
  readonly address: string;
}

/** Each channel's port on 127.0.0.1: the one given for its name, else a free one (0 or absent picks). */
export async function localChannels(specs: readonly ChannelSpec[], ports: Readonly<Record<string, number>> = {}): Promise<LocalChannel[]> {
  const chosen: LocalChannel[] = [];
  for (const spec of specs) {
    const port = ports[spec.name] || (await freePort());
    chosen.push({ spec, port, address: `127.0.0.1:${port}` });
  }
  return chosen;
}

/** `"<spec.endpoint>": "<address>"` for each channel served (`addresses` by channel name): what `.edgeloop/endpoints.json` lists, the address a peer on this machine dials. */
export function channelEndpoints(specs: readonly ChannelSpec[], addresses: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    specs.flatMap((spec) => {
      const address = addresses[spec.name];
      return address ? [[spec.endpoint, address]] : [];
    }),
  );
}
