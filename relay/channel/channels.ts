/**
 * The relay's edge channels: a {@link ChannelServer} for every channel the manifest
 * declares and the command line gives a port (`--{name}-port`, `--{name}-host`; a channel
 * without one is off). The relay learns the channels' names only from the manifest, so a
 * flag for a channel no controller declares is reported then (an error in the log: a
 * typo, or a Worker without that controller).
 */
import type { ChannelSpec, ControllerManifest, Manifest } from "../../protocol/index.ts";
import { ChannelServer, type ChannelStageDeps } from "./channel-server.ts";

/** Where one channel listens, as its flags give it. */
export interface ChannelListen {
  readonly port?: number;
  readonly host?: string;
}

/** Loopback unless told (as the API port): the install passes the pod IP. */
export const DEFAULT_CHANNEL_HOST = "127.0.0.1";

/** What the channels use: what every server shares, and where each listens. */
export interface EdgeChannelsDeps extends ChannelStageDeps {
  /** By channel name, from `--{name}-port` / `--{name}-host`. */
  readonly listen: Readonly<Record<string, ChannelListen>>;
}

/** The declaring controller and spec of each channel of a manifest. */
function declared(manifest: Manifest): Map<string, { spec: ChannelSpec; controller: ControllerManifest }> {
  const channels = new Map<string, { spec: ChannelSpec; controller: ControllerManifest }>();
  for (const controller of manifest.controllers) for (const spec of controller.channels) channels.set(spec.name, { spec, controller });
  return channels;
}

/** Every served channel. */
export class EdgeChannels {
  readonly #deps: EdgeChannelsDeps;
  readonly #servers = new Map<string, ChannelServer>();
  readonly #reported = new Set<string>();
  /** Channels whose series are registered (once per name: a channel closed and served again reads its new server). */
  readonly #measured = new Set<string>();
  #manifest: Manifest = { version: "v1", controllers: [] };
  #leading = false;

  constructor(deps: EdgeChannelsDeps) {
    this.#deps = deps;
  }

  /** `host:port` of each channel served, by name. */
  get addresses(): Record<string, string> {
    return Object.fromEntries([...this.#servers].flatMap(([name, server]) => (server.address ? [[name, server.address]] : [])));
  }

  /**
   * Serves the channels of `manifest` that have a port (a channel it no longer declares is
   * closed), and reports the flags of channels it does not declare. A port that cannot be
   * bound rejects (at start, the relay does not start).
   */
  async use(manifest: Manifest): Promise<void> {
    this.#manifest = manifest;
    const channels = declared(manifest);
    for (const name of Object.keys(this.#deps.listen)) {
      if (channels.has(name) || this.#reported.has(name)) continue;
      this.#reported.add(name);
      this.#deps.log("error", "channel flags name no declared channel", { flags: `--${name}-port, --${name}-host`, declared: [...channels.keys()] });
    }
    for (const [name, server] of this.#servers) {
      if (channels.has(name)) continue;
      this.#servers.delete(name);
      this.#deps.log("info", "channel no longer declared: closed", { channel: name });
      await server.close();
    }
    for (const [name, { spec }] of channels) {
      const listen = this.#deps.listen[name];
      if (this.#servers.has(name) || listen?.port === undefined) continue;
      const server = this.#serve(spec);
      // Held before the port is bound, so that a refresh meanwhile does not serve it twice.
      this.#servers.set(name, server);
      try {
        await server.listen(listen.port, listen.host ?? DEFAULT_CHANNEL_HOST);
      } catch (error) {
        this.#servers.delete(name);
        await server.close();
        throw new Error(`channel ${name}: cannot listen on ${listen.host ?? DEFAULT_CHANNEL_HOST}:${listen.port}: ${String(error)}`);
      }
      this.#measure(name);
      if (this.#leading) server.lead();
      this.#deps.log("info", "channel served", { channel: name, address: server.address ?? "" });
    }
  }

  /** Starts every channel's feed loop, and those of channels served later. */
  lead(): void {
    this.#leading = true;
    for (const server of this.#servers.values()) server.lead();
  }

  /** Closes every channel. */
  async stop(): Promise<void> {
    const servers = [...this.#servers.values()];
    this.#servers.clear();
    await Promise.all(servers.map((server) => server.close()));
  }

  #measure(name: string): void {
    if (this.#measured.has(name)) return;
    this.#measured.add(name);
    this.#deps.metrics.gauge("edgeloop_channel_peers", { channel: name }, () => this.#servers.get(name)?.peers ?? 0);
    this.#deps.metrics.inc("edgeloop_channel_connects_total", { channel: name }, 0);
  }

  #serve(spec: ChannelSpec): ChannelServer {
    const { listen: _listen, ...stage } = this.#deps;
    return new ChannelServer({ ...stage, spec, controller: () => declared(this.#manifest).get(spec.name)?.controller });
  }
}
