/**
 * How `npm run link` reaches the link of a running `npm start`: HTTP over a Unix socket in
 * the state folder (`link.sock`), so only the folder's owner can change it (npm start
 * makes its files the owner's alone) and no port is taken. `GET /` reads the state;
 * `PUT /` with a command (`down`, `up` or a spec) applies it and answers the new state.
 */
import { createServer, request, type Server } from "node:http";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { parseLinkCommand, LinkSpecError } from "./spec.ts";
import type { LinkShaper, LinkState } from "./shaper.ts";

/** The socket's path in a state folder. */
export function linkSocketPath(stateDir: string): string {
  return join(stateDir, "link.sock");
}

/** Longest Unix socket path Linux takes (sun_path holds 108 bytes with its NUL). */
const MAX_SOCKET_PATH = 107;

/** Command bodies are one short line. */
const MAX_BODY = 1_024;

/** Serves the shaper's control on `path`; the returned server is closed with the stack. */
export async function serveLinkControl(path: string, shaper: LinkShaper): Promise<Server> {
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) throw new Error(`the link's control socket path ${path} is longer than ${MAX_SOCKET_PATH} bytes: use a shorter --state`);
  rmSync(path, { force: true });
  const server = createServer((req, res) => {
    const answer = (status: number, body: unknown): void => {
      res.writeHead(status, { "content-type": "application/json" }).end(`${JSON.stringify(body)}\n`);
    };
    if (req.method === "GET") return answer(200, shaper.state);
    if (req.method !== "PUT") return answer(405, { error: { code: "method", message: "GET reads the link, PUT changes it", path: "method" } });
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      text += chunk;
      if (text.length > MAX_BODY) req.destroy();
    });
    req.on("end", () => {
      try {
        answer(200, shaper.apply(parseLinkCommand(text)));
      } catch (error) {
        if (!(error instanceof LinkSpecError)) throw error;
        answer(400, { error: { code: "invalid", message: error.message, path: error.field } });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve());
  });
  return server;
}

/** An answer of the control socket: the state, or the error it named. */
export type ControlAnswer = { readonly ok: true; readonly state: LinkState } | { readonly ok: false; readonly message: string };

/** Reads (`command` undefined) or changes the link of the stack whose socket is `path`. */
export function linkControl(path: string, command?: string): Promise<ControlAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: path, path: "/", method: command === undefined ? "GET" : "PUT", timeout: 5_000 }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        const body = JSON.parse(text) as LinkState | { error: { message: string } };
        resolve("error" in body ? { ok: false, message: body.error.message } : { ok: true, state: body });
      });
    });
    req.on("timeout", () => req.destroy(new Error("the stack did not answer within 5 s")));
    req.on("error", reject);
    req.end(command ?? "");
  });
}
