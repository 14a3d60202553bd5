/**
 * The WebSocket channel protocols of `exec` and `attach` (k8s.io/streaming wsstream, the
 * kubelet's and kube-apiserver's server side): each message is one channel byte and its
 * data; `base64.*` protocols send text frames with the channel as an ASCII digit and
 * base64 data; `v5` adds the close signal (255, then the channel) that half-closes a
 * stream (the client's stdin reaching its end). Channels: 0 stdin, 1 stdout, 2 stderr,
 * 3 error (a Status, written once, last), 4 resize. Pure: framing and the error channel's
 * Status; the socket is the caller's.
 */

/** The protocols served, most preferred first (kubectl and client-go offer `v5.channel.k8s.io`). */
export const CHANNEL_PROTOCOLS = ["v5.channel.k8s.io", "v4.channel.k8s.io", "v4.base64.channel.k8s.io", "base64.channel.k8s.io", "channel.k8s.io"] as const;

/** One of the protocols served. */
export type ChannelProtocol = (typeof CHANNEL_PROTOCOLS)[number];

/** The channel numbers. */
export const CHANNEL = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4 } as const;

const CLOSE_SIGNAL = 255;

/** The protocol the server picks from those the client offers (server preference, as wsstream does). */
export function negotiate(offered: readonly string[]): ChannelProtocol | undefined {
  return CHANNEL_PROTOCOLS.find((protocol) => offered.includes(protocol));
}

/** Whether the protocol frames in base64 text. */
export function isBase64(protocol: ChannelProtocol): boolean {
  return protocol.includes("base64");
}

/** A message for `channel` carrying `data`, framed as `protocol` frames it. */
export function encodeFrame(protocol: ChannelProtocol, channel: number, data: Uint8Array): Buffer | string {
  if (isBase64(protocol)) return `${String.fromCharCode(48 + channel)}${Buffer.from(data).toString("base64")}`;
  return Buffer.concat([Buffer.from([channel]), data]);
}

/** What a client's message says: data on a channel, the end of a channel (v5), or nothing usable. */
export type ClientFrame = { readonly kind: "data"; readonly channel: number; readonly data: Buffer } | { readonly kind: "close"; readonly channel: number } | { readonly kind: "ignore" };

/** Decodes one client message as `protocol` frames it. */
export function decodeFrame(protocol: ChannelProtocol, message: Buffer): ClientFrame {
  if (message.length === 0) return { kind: "ignore" };
  const first = message[0] ?? 0;
  if (protocol === "v5.channel.k8s.io" && first === CLOSE_SIGNAL) {
    return message.length === 2 ? { kind: "close", channel: message[1] ?? 0 } : { kind: "ignore" };
  }
  if (isBase64(protocol)) return { kind: "data", channel: first - 48, data: Buffer.from(message.subarray(1).toString("latin1"), "base64") };
  return { kind: "data", channel: first, data: message.subarray(1) };
}

/** The error channel's Status when the command exited 0. */
export function successStatus(): Record<string, unknown> {
  return { metadata: {}, status: "Success" };
}

/** The error channel's Status when the command exited non-zero, as the kubelet writes it (the exit code in a cause). */
export function exitCodeStatus(argv: readonly string[], code: number): Record<string, unknown> {
  return {
    metadata: {},
    status: "Failure",
    message: `command terminated with non-zero exit code: command '${argv.join(" ")}' exited with ${code}`,
    reason: "NonZeroExitCode",
    details: { causes: [{ reason: "ExitCode", message: String(code) }] },
  };
}

/** The error channel's Status for a failure before or beside the command (no node to reach, container not running). */
export function internalErrorStatus(message: string): Record<string, unknown> {
  return { metadata: {}, status: "Failure", message: `Internal error occurred: ${message}`, reason: "InternalError", details: { causes: [{ message }] }, code: 500 };
}
