/**
 * The streaming subresources of a pod — `exec`, `attach`, `portforward` — as kube-apiserver
 * and a kubelet answer them for a simulated pod (as kwok serves them for its fake pods):
 * the API server's checks first (the pod, the container, a node assigned), answered as
 * plain HTTP errors that kubectl prints; then a WebSocket channel protocol
 * (channel-protocol.ts) carrying the session. SPDY (kubectl's fallback when a WebSocket
 * upgrade fails) is refused with a message, as is port-forward: nothing listens on a
 * simulated pod's ports.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import type { KubeObject } from "../../protocol/index.ts";
import { ApiError, type Cluster } from "../contract.ts";
import { containerLogsOf } from "../controllers/container-logs.ts";
import { badRequest } from "../pipeline/errors.ts";
import { CHANNEL_PROTOCOLS, negotiate, internalErrorStatus, type ChannelProtocol } from "./channel-protocol.ts";
import { ChannelSocket, containerContext, runAttach, runExec, type StreamOptions } from "./exec-session.ts";
import { queryBool } from "./query.ts";

type Obj = Record<string, unknown>;

const POD = { apiVersion: "v1", kind: "Pod" };
const NODE = { apiVersion: "v1", kind: "Node" };
const STREAMING = new Set(["exec", "attach", "portforward"]);

/** A request for a pod's streaming subresource. */
export interface PodStreamTarget {
  readonly namespace: string;
  readonly pod: string;
  readonly subresource: "exec" | "attach" | "portforward";
}

/** The pod streaming subresource a path names (`/api/v1/namespaces/{ns}/pods/{name}/exec`), if any. */
export function podStreamTarget(pathname: string): PodStreamTarget | undefined {
  let parts: string[];
  try {
    parts = pathname.split("/").filter((s) => s !== "").map(decodeURIComponent);
  } catch {
    return undefined; // a malformed escape names no pod
  }
  const [api, version, namespaces, namespace, pods, pod, subresource] = parts;
  if (parts.length !== 7 || api !== "api" || version !== "v1" || namespaces !== "namespaces" || pods !== "pods") return undefined;
  if (!namespace || !pod || !subresource || !STREAMING.has(subresource)) return undefined;
  return { namespace, pod, subresource: subresource as PodStreamTarget["subresource"] };
}

/** Why port-forward answers no: nothing listens on a simulated pod's ports. */
export const PORT_FORWARD_MESSAGE = "port-forward cannot work on the edgeloop sim: its pods run no real containers, so nothing listens on their ports";

/** The container a request means, as kube-apiserver's validateContainer picks and refuses it. */
function containerOf(pod: KubeObject, requested: string | null): string {
  const spec = ((pod as Obj).spec ?? {}) as Obj;
  const names = [spec.containers, spec.initContainers, spec.ephemeralContainers].map((list) => (Array.isArray(list) ? (list as Obj[]).map((c) => String(c.name ?? "")) : []));
  const [containers = [], init = [], ephemeral = []] = names;
  const name = pod.metadata.name ?? "";
  if (requested) {
    if (![...containers, ...init, ...ephemeral].includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
    return requested;
  }
  if (containers.length === 1) return containers[0] ?? "";
  if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
  throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${[...containers, ...init, ...ephemeral].join(" ")}]`);
}

/** The API server's checks before it reaches the node: the pod, the container, a node assigned. */
async function checkPod(cluster: Cluster, target: PodStreamTarget, q: URLSearchParams): Promise<{ pod: KubeObject; container: string }> {
  const pod = await cluster.get(POD, target.namespace, target.pod);
  const container = target.subresource === "portforward" ? "" : containerOf(pod, q.get("container"));
  const nodeName = ((pod as Obj).spec as Obj | undefined)?.nodeName;
  if (typeof nodeName !== "string" || nodeName === "") throw badRequest(`pod ${target.pod} does not have a host assigned`);
  // The API server looks the node up for its kubelet's address before it dials.
  await cluster.get(NODE, undefined, nodeName);
  return { pod, container };
}

/** The kubelet's answer before the command starts: its node must be Ready, the container running. */
async function kubeletRefusal(cluster: Cluster, pod: KubeObject, container: string): Promise<string | undefined> {
  const nodeName = String(((pod as Obj).spec as Obj).nodeName);
  const node = await cluster.get(NODE, undefined, nodeName).catch((): undefined => undefined);
  const conditions = ((node as Obj | undefined)?.status as Obj | undefined)?.conditions;
  const ready = Array.isArray(conditions) && (conditions as Obj[]).some((c) => c.type === "Ready" && c.status === "True");
  if (!ready) return `error dialing backend: node "${nodeName}" is not Ready: the edgeloop sim's kubelet for it does not answer`;
  const status = ((pod as Obj).status ?? {}) as Obj;
  const statuses = [status.containerStatuses, status.initContainerStatuses, status.ephemeralContainerStatuses].flatMap((list) => (Array.isArray(list) ? (list as Obj[]) : []));
  const found = statuses.find((s) => s.name === container);
  const state = (found?.state ?? {}) as Obj;
  if (state.running) return undefined;
  // A container that ran and stopped (or waits in CrashLoopBackOff) exists but cannot exec, as containerd says; one never started does not exist.
  if (state.terminated || ((found?.lastState ?? {}) as Obj).terminated) return "error executing command in container: failed to exec in container: container is in CONTAINER_EXITED state";
  return `unable to upgrade connection: container not found ("${container}")`;
  return undefined;
}

function streamOptions(q: URLSearchParams): StreamOptions {
  return { stdin: queryBool(q, "stdin"), stdout: queryBool(q, "stdout"), stderr: queryBool(q, "stderr"), tty: queryBool(q, "tty") };
}

/** Writes an API error as a plain HTTP response on a socket not upgraded, and closes it. */
function refuse(socket: Duplex, error: ApiError): void {
  const body = JSON.stringify(error.toStatus());
  const reason = error.code === 404 ? "Not Found" : error.code === 400 ? "Bad Request" : "Error";
  socket.end(`HTTP/1.1 ${error.code} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** The subprotocols a request offers. */
function offered(request: IncomingMessage): string[] {
  return String(request.headers["sec-websocket-protocol"] ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
}

/** The server's side of the pod streams: its upgrade handler, and the end of every open session. */
export interface PodStreams {
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Ends every open session (the HTTP server no longer tracks an upgraded socket, so its close would wait for them). */
  close(): void;
}

/** Serves HTTP upgrades: the pod streaming subresources; anything else is refused. */
export function podStreamUpgrades(cluster: Cluster): PodStreams {
  // A frame is a stdin chunk or a resize: 1 MiB bounds it (kubectl sends at most 32 KiB).
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024, handleProtocols: (protocols) => negotiate([...protocols]) ?? false });
  return {
    upgrade(request, socket, head) {
      socket.on("error", () => socket.destroy());
      serve(cluster, sockets, request, socket, head).catch((error: unknown) => {
        refuse(socket, error instanceof ApiError ? error : new ApiError(500, "InternalError", `Internal error occurred: ${(error as Error).message}`));
      });
    },
    close() {
      for (const client of sockets.clients) client.terminate();
    },
  };
}

async function serve(cluster: Cluster, sockets: WebSocketServer, request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  const url = URL.parse(request.url ?? "/", "http://sim");
  const target = url ? podStreamTarget(url.pathname) : undefined;
  if (!url || !target) throw badRequest("the edgeloop sim upgrades connections only for a pod's exec, attach and portforward");
  const q = url.searchParams;
  const { pod, container } = await checkPod(cluster, target, q);
  if (target.subresource === "portforward") throw badRequest(PORT_FORWARD_MESSAGE);
  const options = streamOptions(q);
  if (!options.stdin && !options.stdout && !options.stderr) throw badRequest("you must specify at least 1 of stdin, stdout, stderr");
  const argv = q.getAll("command");
  if (target.subresource === "exec" && argv.length === 0) throw badRequest("you must specify at least one command for the container");
  if (String(request.headers.upgrade ?? "").toLowerCase() !== "websocket") {
    throw badRequest(`the edgeloop sim serves ${target.subresource} over WebSocket (v5.channel.k8s.io, v4.channel.k8s.io) only, not ${String(request.headers.upgrade ?? "a plain request")}`);
  }
  const protocol = negotiate(offered(request));
  if (!protocol) throw badRequest(`none of the offered subprotocols is served; the edgeloop sim serves ${CHANNEL_PROTOCOLS.join(", ")}`);
  sockets.handleUpgrade(request, socket, head, (ws) => {
    const channels = new ChannelSocket(ws, protocol satisfies ChannelProtocol, options);
    session(cluster, channels, target, pod, container, argv, options.stdin).catch((error: unknown) => channels.finish(internalErrorStatus((error as Error).message)));
  });
}

async function session(cluster: Cluster, socket: ChannelSocket, target: PodStreamTarget, pod: KubeObject, container: string, argv: readonly string[], stdin: boolean): Promise<void> {
  const refusal = await kubeletRefusal(cluster, pod, container);
  if (refusal) return socket.finish(internalErrorStatus(refusal));
  if (target.subresource === "attach") return runAttach(socket, containerLogsOf(cluster), pod.metadata.uid ?? "", container);
  runExec(socket, argv, containerContext(pod, container), stdin);
}
