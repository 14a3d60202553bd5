/**
 * An `exec` or `attach` session over a negotiated channel socket: exec runs the simulated
 * command interpreter in the container's context (its env and hostname), writes its
 * lines on stdout and stderr at the moments it prints them, and ends with the exit status
 * on the error channel; attach streams what the container writes from now on until it
 * stops. Stdin is read where the command reads it (`cat`, `sh` reading a script).
 */
import type { WebSocket } from "ws";
import type { KubeObject } from "../../protocol/index.ts";
import { interpretExec, readsStdin, type OutputLine } from "../controllers/container-command.ts";
import type { ContainerLogs } from "../controllers/container-logs.ts";
import { CHANNEL, decodeFrame, encodeFrame, exitCodeStatus, successStatus, type ChannelProtocol } from "./channel-protocol.ts";

type Obj = Record<string, unknown>;

/** Bytes of stdin kept for a command that reads it to its end. */
const MAX_STDIN_BYTES = 1024 * 1024;

/** The shortest session, from the upgrade to the close (see finish). */
const MIN_SESSION_MS = 100;

/** The streams the client asked for (the request's `stdin`, `stdout`, `stderr`, `tty`). */
export interface StreamOptions {
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
}

/** A negotiated socket: writes a channel's data, ends with a Status, reports stdin. */
export class ChannelSocket {
  readonly #socket: WebSocket;
  readonly #protocol: ChannelProtocol;
  readonly #options: StreamOptions;
  #closed = false;
  readonly #opened = Date.now();

  constructor(socket: WebSocket, protocol: ChannelProtocol, options: StreamOptions) {
    this.#socket = socket;
    this.#protocol = protocol;
    this.#options = options;
    socket.on("close", () => (this.#closed = true));
  }

  /** Writes a line on its stream (a tty has one: stderr joins stdout, newlines become CRLF). */
  write(stream: OutputLine["stream"], text: string): void {
    if (this.#options.tty) return this.#send(CHANNEL.stdout, text.replace(/\r?\n/g, "\r\n"), this.#options.stdout);
    this.#send(stream === "stdout" ? CHANNEL.stdout : CHANNEL.stderr, text, this.#options[stream]);
  }

  /** Writes the final Status on the error channel and closes the socket. */
  finish(status: Record<string, unknown>): void {
    this.#send(CHANNEL.error, JSON.stringify(status), true);
    // A real exec takes the runtime some milliseconds; closing sooner races kubectl's first
    // tty resize and stdin writes, which it then reports as "websocket: close sent".
    const socket = this.#socket;
    const wait = Math.max(0, this.#opened + MIN_SESSION_MS - Date.now());
    if (!this.#closed) setTimeout(() => socket.close(1000), wait);
    this.#closed = true;
  }

  /** Calls `listener` once the client hangs up or the session ends. */
  onClose(listener: () => void): void {
    this.#socket.on("close", listener);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Calls `onData` for each stdin chunk and `onEnd` once stdin ends (v5's close signal, or the socket closing). */
  readStdin(onData: (data: Buffer) => void, onEnd: () => void): void {
    let ended = false;
    const end = (): void => {
      if (!ended) onEnd();
      ended = true;
    };
    this.#socket.on("message", (message: Buffer) => {
      const frame = decodeFrame(this.#protocol, Buffer.isBuffer(message) ? message : Buffer.from(message));
      if (frame.kind === "close" && frame.channel === CHANNEL.stdin) end();
      if (frame.kind === "data" && frame.channel === CHANNEL.stdin && !ended) onData(frame.data);
    });
    this.#socket.on("close", end);
  }

  #send(channel: number, text: string, wanted: boolean): void {
    if (!wanted || this.#closed || text === "") return;
    this.#socket.send(encodeFrame(this.#protocol, channel, Buffer.from(text)));
  }
}

/** The container's context as exec sees it: its plain env values and the pod's hostname. */
export function containerContext(pod: KubeObject, container: string): { env: Record<string, string>; hostname: string } {
  const spec = ((pod as Obj).spec ?? {}) as Obj;
  const all = [spec.containers, spec.initContainers, spec.ephemeralContainers].flatMap((list) => (Array.isArray(list) ? (list as Obj[]) : []));
  const found = all.find((c) => c.name === container) ?? {};
  const env = Array.isArray(found.env) ? (found.env as Obj[]) : [];
  return {
    env: Object.fromEntries(env.filter((e) => typeof e.value === "string").map((e) => [String(e.name), String(e.value)])),
    hostname: String(spec.hostname ?? pod.metadata.name ?? "").slice(0, 63),
  };
}

/** Runs `argv` in the container's context; ends with its exit status, or when the client hangs up. */
export function runExec(socket: ChannelSocket, argv: readonly string[], context: { env: Record<string, string>; hostname: string }, stdin: boolean): void {
  const start = (input: string): void => play(socket, argv, interpretExec(argv, context, input));
  if (!stdin || !readsStdin(argv)) return start("");
  if (isPlainCat(argv)) {
    // `cat` copies stdin as it comes, so an interactive `kubectl exec -i pod -- cat` echoes each line.
    return socket.readStdin(
      (data) => socket.write("stdout", data.toString()),
      () => socket.finish(successStatus()),
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  socket.readStdin(
    (data) => {
      if (size + data.length > MAX_STDIN_BYTES) return;
      chunks.push(data);
      size += data.length;
    },
    () => start(Buffer.concat(chunks).toString()),
  );
}

function isPlainCat(argv: readonly string[]): boolean {
  const words = argv[0] === "exec" ? argv.slice(1) : argv;
  return words[0]?.replace(/^.*\//, "") === "cat" && words.slice(1).every((word) => word === "-");
}

/** Writes the program's lines at the moments it prints them, then its exit status. */
function play(socket: ChannelSocket, argv: readonly string[], program: { readonly output: readonly OutputLine[]; readonly exitAfter: number | undefined; readonly exitCode: number }): void {
  const began = Date.now();
  const due = (seconds: number): number => Math.max(0, began + seconds * 1000 - Date.now());
  let index = 0;
  const step = (): void => {
    if (socket.closed) return;
    while (index < program.output.length && due(program.output[index]?.at ?? 0) === 0) {
      const line = program.output[index++];
      if (line) socket.write(line.stream, line.text);
    }
    const next = program.output[index];
    if (next) return void setTimeout(step, due(next.at));
    if (program.exitAfter === undefined) return; // `sleep infinity`: runs until the client hangs up
    if (due(program.exitAfter) > 0) return void setTimeout(step, due(program.exitAfter));
    socket.finish(program.exitCode === 0 ? successStatus() : exitCodeStatus(argv, program.exitCode));
  };
  step();
}

/** Streams what the container writes from now on, until it stops or the client hangs up; stdin goes nowhere (a simulated program reads none). */
export function runAttach(socket: ChannelSocket, logs: ContainerLogs, uid: string, container: string): void {
  const since = Date.now();
  let sent = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const pump = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (socket.closed) return unsubscribe();
    const view = logs.read(uid, container, false, Date.now());
    const fresh = (view?.entries ?? []).filter((entry) => entry.time >= since);
    for (const entry of fresh.slice(sent)) socket.write(entry.stream, entry.text);
    sent = fresh.length;
    if (!view || view.ended) {
      unsubscribe();
      return socket.finish(successStatus());
    }
    if (view.nextAt !== undefined) timer = setTimeout(pump, Math.max(0, view.nextAt - Date.now()));
  };
  const unsubscribe = logs.subscribe(uid, container, pump);
  // Stdin ending (`kubectl attach -i` at EOF) does not end an attach; the client hanging up does.
  socket.onClose(() => {
    unsubscribe();
    if (timer) clearTimeout(timer);
  });
  pump();
}
