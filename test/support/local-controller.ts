/**
 * A Sedna LocalController (LC) as far as the GlobalManager can tell, written from the
 * upstream protocol (kubeedge/sedna `pkg/localcontroller/gmclient`, `…/managers/*`): it
 * dials `ws://<GM_ADDRESS>/` with `Node-Name: <node>`, first writes an empty message
 * header, redials at once when the socket closes and every 5 s while a dial fails, keeps
 * the objects the GM sends per kind (`insert` upserts, `delete` removes, any other
 * operation is refused as unknown, as upstream logs and drops it), and sends `status`
 * messages byte for byte as Go writes them. A frame it cannot decode ends the connection
 * (upstream's read loop returns on a `ReadJSON` error) and it redials.
 */
import { EventEmitter } from "node:events";
import WebSocket from "ws";
import { z } from "zod";
import { waitFor } from "../../cli/wait.ts";
import { GoBytes, goEncode, GoStruct, type GoValue } from "./go-json.ts";

/** Upstream's `RetryConnectIntervalSeconds`: the pause after a failed dial. */
export const UPSTREAM_RETRY_INTERVAL_MS = 5_000;

/** The kinds upstream's LC registers a manager for (`GetName()` of each), lower case as the header carries them. */
export const UPSTREAM_KINDS = ["dataset", "model", "federatedlearningjob", "incrementallearningjob", "jointinferenceservice", "lifelonglearningjob"] as const;

/** A message header (`pkg/globalmanager/messagelayer/model.MessageHeader`). */
export interface MessageHeader {
  readonly namespace: string;
  readonly resourceKind: string;
  readonly resourceName: string;
  readonly operation: string;
}

/** A message the LC read: its header and when (`performance.now()`). */
export interface ReceivedHeader {
  readonly header: MessageHeader;
  readonly at: number;
}

/** A message the LC read, with its content decoded from base64 (`null` when absent). */
export interface ReceivedMessage extends ReceivedHeader {
  readonly content: Buffer | null;
}

/** How many frames of each sort the LC has seen and written. */
export interface LocalControllerCounters {
  /** Sockets opened (the first, and each redial that succeeded). */
  connects: number;
  /** Dials that failed (each is followed by the retry interval). */
  dialFailures: number;
  framesReceived: number;
  inserts: number;
  deletes: number;
  /** Operations other than insert and delete (upstream: "unknown operation"). */
  unknownOperations: number;
  /** Messages for a kind no manager registered (upstream: "hadn't registered"). */
  unknownKinds: number;
  /** Inserts whose content is not a JSON object (upstream's `json.Unmarshal` fails). */
  badContents: number;
  /** Frames that are not a message (upstream's `ReadJSON` fails: the connection ends). */
  malformed: number;
  /** Frames written: the empty header on each connect, and each message. */
  framesSent: number;
}

/** Where the LC dials and who it is. */
export interface LocalControllerOptions {
  /** `host:port`, as the DaemonSet's `GM_ADDRESS`. */
  readonly gmAddress: string;
  /** The node, sent as `Node-Name`. */
  readonly nodeName: string;
  /** The pause after a failed dial (default upstream's 5 s). */
  readonly retryIntervalMs?: number;
  /** The kinds with a manager (default {@link UPSTREAM_KINDS}). */
  readonly kinds?: readonly string[];
  /**
   * Check each insert's content as upstream's `json.Unmarshal` does (default true). A
   * thousand LCs in one process (the bench) keep the bytes instead and parse an object
   * when it is read: the parsing is each node's own work on a real cluster.
   */
  readonly parseInserts?: boolean;
}

/** An FL worker's report, as the LC's federated-learning manager forwards it (`UpstreamMessage`). */
export interface TrainingReport {
  readonly namespace: string;
  readonly job: string;
  /** The worker's phase (`kind` of its message): train, eval, deploy. */
  readonly phase?: string;
  /** running, completed, failed. */
  readonly status?: string;
  readonly round: number;
  /** The worker's time of the round (RFC 3339). */
  readonly updateTime: string;
  /** The models of the round; the GM reads the first one's metrics. */
  readonly models?: ReadonlyArray<{ readonly [key: string]: GoValue }>;
}

// What upstream's ReadJSON decodes into: Go matches field names case-insensitively and ignores unknown ones.
const Header = z.object({ namespace: z.string().default(""), resourceKind: z.string().default(""), resourceName: z.string().default(""), operation: z.string().default("") });
const Base64 = z.string().regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, "not standard base64");
const Frame = z.object({ header: Header.default({ namespace: "", resourceKind: "", resourceName: "", operation: "" }), content: Base64.nullable().default(null) });

/** A Go-decoded message: keys matched case-insensitively (the last match wins, as Go's decoder does). */
function lowerKeys(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const canonical: Record<string, string> = { header: "header", content: "content", namespace: "namespace", resourcekind: "resourceKind", resourcename: "resourceName", operation: "operation" };
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, field]) => [canonical[key.toLowerCase()] ?? key, key.toLowerCase() === "header" ? lowerKeys(field) : field]));
}

/** Decodes a frame as upstream's `ws.ReadJSON(&Message{})` does, or says why it cannot. */
export function decodeFrame(text: string, at = performance.now()): ReceivedMessage | Error {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return error as Error;
  }
  const parsed = Frame.safeParse(lowerKeys(json));
  if (!parsed.success) return new Error(parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "));
  return { header: parsed.data.header, content: parsed.data.content === null ? null : Buffer.from(parsed.data.content, "base64"), at };
}

/** Upstream's `Message` as its `WriteJSON` writes it: the header struct, then the content `[]byte`. */
export function encodeMessage(header: MessageHeader, content: GoValue | undefined): string {
  const bytes = content === undefined ? null : Buffer.from(goEncode(content).slice(0, -1), "utf8");
  return goEncode(
    new GoStruct([
      ["header", headerStruct(header)],
      ["content", new GoBytes(bytes)],
    ]),
  );
}

/** The first frame of every connection: `WriteJSON(&MessageHeader{})`. */
export const HELLO = goEncode(headerStruct({ namespace: "", resourceKind: "", resourceName: "", operation: "" }));

function headerStruct(header: MessageHeader): GoStruct {
  return new GoStruct([
    ["namespace", header.namespace],
    ["resourceKind", header.resourceKind],
    ["resourceName", header.resourceName],
    ["operation", header.operation],
  ]);
}

/** An FL status content (`gmclient.UpstreamMessage`: phase, status, output{models, ownerInfo}; `input` omitted when empty). */
export function trainingContent(report: Omit<TrainingReport, "namespace" | "job">): GoStruct {
  return new GoStruct([
    ["phase", report.phase ?? "train"],
    ["status", report.status ?? "running"],
    [
      "output",
      new GoStruct([
        ["models", report.models ? [...report.models] : null],
        ["ownerInfo", { currentRound: report.round, updateTime: report.updateTime }],
      ]),
    ],
  ]);
}

/** A Dataset status content, as the LC's dataset manager writes it (`struct{ NumberOfSamples int }`). */
export function datasetContent(numberOfSamples: number): GoStruct {
  return new GoStruct([["numberOfSamples", numberOfSamples]]);
}

const key = (namespace: string, name: string): string => `${namespace}/${name}`;

/** A LocalController: `start()` it, read what it holds, make it report, `stop()` it. */
export class LocalController extends EventEmitter<{ message: [ReceivedMessage]; change: [] }> {
  readonly nodeName: string;
  readonly counters: LocalControllerCounters = { connects: 0, dialFailures: 0, framesReceived: 0, inserts: 0, deletes: 0, unknownOperations: 0, unknownKinds: 0, badContents: 0, malformed: 0, framesSent: 0 };
  /** The header of every message read, in order (the contents are in what it holds). */
  readonly received: ReceivedHeader[] = [];
  private readonly options: Required<LocalControllerOptions>;
  /** Per kind, by `namespace/name`: the object, or its bytes until it is read ({@link LocalControllerOptions.parseInserts} false). */
  private readonly objects = new Map<string, Map<string, Record<string, unknown> | Buffer>>();
  /** Messages written by the managers, waiting for a connection (upstream's SendMessageChannel). */
  private readonly outbox: string[] = [];
  private socket: WebSocket | undefined;
  private open = false;
  private stopped = true;
  private retry: ReturnType<typeof setTimeout> | undefined;

  constructor(options: LocalControllerOptions) {
    super();
    this.options = { retryIntervalMs: UPSTREAM_RETRY_INTERVAL_MS, kinds: UPSTREAM_KINDS, parseInserts: true, ...options };
    this.nodeName = options.nodeName;
    for (const kind of this.options.kinds) this.objects.set(kind, new Map());
  }

  /** Starts dialing; it keeps redialing until {@link stop}. */
  start(): this {
    this.stopped = false;
    this.dial();
    return this;
  }

  /** Whether a socket is open (the empty header written). */
  get connected(): boolean {
    return this.open;
  }

  /** The `namespace/name` of each object of `kind` it holds. */
  held(kind: string): ReadonlySet<string> {
    return new Set(this.objects.get(kind)?.keys());
  }

  /** The object of `kind` it holds under that name, if any. */
  holding(kind: string, namespace: string, name: string): Record<string, unknown> | undefined {
    const objects = this.objects.get(kind);
    const held = objects?.get(key(namespace, name));
    if (!Buffer.isBuffer(held)) return held;
    const object = parseObject(held) ?? {};
    objects?.set(key(namespace, name), object);
    return object;
  }

  /** Waits until `condition(this)` holds (re-read every few ms), or fails after `timeoutMs` saying what it holds. */
  async until(what: string, condition: (lc: this) => boolean, timeoutMs = 10_000): Promise<void> {
    await waitFor(`${this.nodeName}'s LC: ${what}`, () => condition(this), Boolean, { timeoutMs, intervalMs: 5, describe: () => this.describe() });
  }

  /** What it holds and has counted, for a failure message. */
  describe(): string {
    const held = [...this.objects].filter(([, objects]) => objects.size > 0).map(([kind, objects]) => `${kind}: ${[...objects.keys()].join(", ")}`);
    return `${this.open ? "connected" : "not connected"}; holds ${held.join("; ") || "nothing"}; counters ${JSON.stringify(this.counters)}`;
  }

  /** Queues a message as a manager's `WriteMessage` does: written now if connected, else after the next connect. */
  send(header: Omit<MessageHeader, "operation"> & { readonly operation?: string }, content: GoValue): void {
    this.sendRaw(encodeMessage({ operation: "status", ...header }, content));
  }

  /** Queues a frame of any text (a malformed one, for tests). */
  sendRaw(text: string): void {
    this.outbox.push(text);
    this.flush();
  }

  /** An FL worker's round, as the LC's federated-learning manager reports it. */
  reportTraining(report: TrainingReport): void {
    this.send({ namespace: report.namespace, resourceKind: "federatedlearningjob", resourceName: report.job }, trainingContent(report));
  }

  /**
   * A Dataset's sample count, as the LC's dataset manager reports it: for a Dataset it
   * holds, under the kind, namespace and name of the object it was sent (upstream
   * monitors only those).
   */
  reportDatasetSamples(namespace: string, name: string, numberOfSamples: number): void {
    const dataset = this.holding("dataset", namespace, name);
    if (!dataset) throw new Error(`${this.nodeName}'s LC holds no Dataset ${key(namespace, name)}: upstream reports only on Datasets it was sent`);
    const metadata = (dataset["metadata"] ?? {}) as { namespace?: string; name?: string };
    this.send({ namespace: metadata.namespace ?? namespace, resourceKind: typeof dataset["kind"] === "string" ? dataset["kind"] : "dataset", resourceName: metadata.name ?? name }, datasetContent(numberOfSamples));
  }

  /** Drops the socket as a network failure would (no close handshake); the LC redials at once, as upstream's loop does. */
  drop(): void {
    this.socket?.terminate();
  }

  /** Closes the socket and stops redialing. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const socket = this.socket;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.terminate();
    await closed;
  }

  private dial(): void {
    if (this.stopped) return;
    const socket = new WebSocket(`ws://${this.options.gmAddress}/`, { headers: { "Node-Name": this.options.nodeName } });
    this.socket = socket;
    let opened = false;
    socket.on("open", () => {
      opened = true;
      this.counters.connects += 1;
      socket.send(HELLO);
      this.counters.framesSent += 1;
      this.open = true;
      this.flush();
      this.emit("change");
    });
    socket.on("message", (data, isBinary) => this.read(isBinary ? Buffer.from(data as Buffer).toString("utf8") : String(data), socket));
    socket.on("error", () => undefined); // a close follows
    socket.on("close", () => {
      if (this.socket === socket) this.open = false;
      this.emit("change");
      if (this.stopped || this.socket !== socket) return;
      if (opened) {
        this.dial();
        return;
      }
      this.counters.dialFailures += 1;
      this.retry = setTimeout(() => this.dial(), this.options.retryIntervalMs);
    });
  }

  private flush(): void {
    const socket = this.socket;
    if (!this.open || !socket) return;
    for (let text = this.outbox.shift(); text !== undefined; text = this.outbox.shift()) {
      socket.send(text);
      this.counters.framesSent += 1;
    }
  }

  private read(text: string, socket: WebSocket): void {
    this.counters.framesReceived += 1;
    const message = decodeFrame(text);
    if (message instanceof Error) {
      // Upstream's read loop returns: the connection is closed and dialed again.
      this.counters.malformed += 1;
      socket.terminate();
      return;
    }
    this.received.push({ header: message.header, at: message.at });
    this.apply(message);
    this.emit("message", message);
    this.emit("change");
  }

  private apply(message: ReceivedMessage): void {
    const { header } = message;
    const objects = this.objects.get(header.resourceKind);
    if (!objects) {
      this.counters.unknownKinds += 1;
      return;
    }
    const name = key(header.namespace, header.resourceName);
    if (header.operation === "insert") {
      const object = this.options.parseInserts ? parseObject(message.content) : (message.content ?? undefined);
      if (!object) {
        this.counters.badContents += 1;
        return;
      }
      objects.set(name, object);
      this.counters.inserts += 1;
    } else if (header.operation === "delete") {
      objects.delete(name);
      this.counters.deletes += 1;
    } else {
      this.counters.unknownOperations += 1;
    }
  }
}

/** The inserted object (`json.Unmarshal` into the kind's struct), or undefined when it is not a JSON object. */
function parseObject(content: Buffer | null): Record<string, unknown> | undefined {
  if (content === null) return undefined;
  try {
    const value: unknown = JSON.parse(content.toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Starts an LC for each node; resolves once every one is connected. */
export async function startLocalControllers(gmAddress: string, nodes: readonly string[], options: Omit<LocalControllerOptions, "gmAddress" | "nodeName"> = {}, timeoutMs = 30_000): Promise<LocalController[]> {
  const lcs = nodes.map((nodeName) => new LocalController({ ...options, gmAddress, nodeName }).start());
  await Promise.all(lcs.map((lc) => lc.until("connected", (c) => c.connected, timeoutMs)));
  return lcs;
}
