import assert from "node:assert/strict";
import { test } from "node:test";
import { admissionOutcome, emptyTally, exitCode, formatTable, MAX_EXAMPLES, record, refusedUnread, summaryLine, totals } from "./counting.ts";
import { diffSnapshots, fingerprint, type Remembered } from "./snapshot.ts";
import type { KubeObject } from "../../protocol/index.ts";

test("outcomes are counted by class; only 5xx and crashes are described", () => {
  const tally = emptyTally("s");
  let described = 0;
  const describe = (): string => `request ${++described}`;
  for (const status of [200, 204, 301, 400, 401, 404, 413, 499, 500, 501, 503]) record(tally, { kind: "status", status }, describe);
  record(tally, { kind: "crash", reason: "ECONNRESET" }, describe);
  record(tally, { kind: "closed", reason: "ECONNRESET" }, describe);
  assert.deepEqual({ tried: tally.tried, ok: tally.ok, client: tally.client, closed: tally.closed, notImplemented: tally.notImplemented, server: tally.server, crashes: tally.crashes }, { tried: 13, ok: 3, client: 5, closed: 1, notImplemented: 1, server: 2, crashes: 1 });
  assert.equal(described, 3);
  assert.match(tally.examples[2] ?? "", /^crash \(ECONNRESET\)/);
  for (let i = 0; i < 10; i++) record(tally, { kind: "status", status: 500 }, describe);
  assert.equal(tally.examples.length, MAX_EXAMPLES);
});

test("a reset is a refusal only for a body over the limit or a method no parser knows", () => {
  const reset = { kind: "crash", reason: "ECONNRESET" } as const;
  assert.deepEqual(refusedUnread({ method: "POST", oversized: true, signing: "none" }, reset), { kind: "closed", reason: "ECONNRESET" });
  assert.deepEqual(refusedUnread({ method: "FUZZ", signing: "none" }, { kind: "crash", reason: "EPIPE" }), { kind: "closed", reason: "EPIPE" });
  assert.deepEqual(refusedUnread({ method: "POST", signing: "none" }, reset), reset, "a relay or sim surface reads the body: a reset is a crash");
  assert.deepEqual(refusedUnread({ method: "POST", signing: "none" }, reset, true), { kind: "closed", reason: "ECONNRESET" }, "the Worker refuses an unsigned request from its headers");
  assert.deepEqual(refusedUnread({ method: "POST", signing: "valid" }, reset, true), reset, "a signed one it reads: a reset is a crash");
  assert.deepEqual(refusedUnread({ method: "POST", oversized: true, signing: "none" }, { kind: "crash", reason: "closed without an answer" }), { kind: "crash", reason: "closed without an answer" });
  assert.deepEqual(refusedUnread({ method: "FUZZ", signing: "none" }, { kind: "status", status: 400 }), { kind: "status", status: 400 });
});

test("the summary line and the exit code", () => {
  const a = { ...emptyTally("a"), tried: 10, client: 10 };
  const b = { ...emptyTally("b"), tried: 5, ok: 5 };
  assert.equal(summaryLine(totals([a, b])), "bad inputs: 15 tried, 5xx: 0, crashes: 0, changed: 0");
  assert.equal(exitCode(totals([a, b])), 0);
  assert.equal(exitCode(totals([a, { ...b, changed: 1 }])), 1);
  assert.equal(exitCode(totals([a, { ...b, crashes: 1 }])), 1);
  assert.equal(exitCode(totals([{ ...a, server: 1 }, b])), 1);
});

test("the table has a header, a row per surface and a total", () => {
  const lines = formatTable([{ ...emptyTally("worker reconcile"), tried: 12, client: 12 }, { ...emptyTally("sim"), tried: 3, ok: 1, client: 2 }]).split("\n");
  assert.equal(lines.length, 6);
  assert.match(lines[0] ?? "", /^surface\s+tried\s+2xx\/3xx\s+4xx\s+closed\s+501\s+5xx\s+crashes\s+changed$/);
  assert.match(lines[5] ?? "", /^total\s+15\s+1\s+14\s+0\s+0\s+0\s+0\s+0$/);
  assert.equal(new Set(lines.map((l) => l.length)).size, 1, "columns align");
});

test("a snapshot diff names objects created, deleted and modified; a heartbeat is no change", () => {
  const node = (beat: string, labels: Record<string, string> = {}): KubeObject => ({ apiVersion: "v1", kind: "Node", metadata: { name: "n", resourceVersion: beat, labels }, status: { conditions: [{ type: "Ready", status: "True", lastHeartbeatTime: beat }] } }) as KubeObject;
  const at = (object: KubeObject): Remembered => ({ resourceVersion: object.metadata.resourceVersion ?? "", fingerprint: fingerprint(object) });
  const before = new Map([["/nodes//n", at(node("1"))], ["/pods/ns/gone", { resourceVersion: "2", fingerprint: "x" }]]);
  assert.deepEqual(diffSnapshots(before, new Map([["/nodes//n", at(node("5"))], ["/pods/ns/gone", { resourceVersion: "2", fingerprint: "x" }]])), []);
  assert.deepEqual(diffSnapshots(before, new Map([["/nodes//n", at(node("6", { a: "b" }))], ["/pods/ns/new", { resourceVersion: "7", fingerprint: "y" }]])), [
    { key: "/nodes//n", how: "modified" },
    { key: "/pods/ns/gone", how: "deleted" },
    { key: "/pods/ns/new", how: "created" },
  ]);
});

test("an admission answer's own 5xx (HTTP 200, response.status.code 500) counts as a 5xx; its denials and allowances do not", () => {
  const ok = { kind: "status", status: 200 } as const;
  const review = (status: string): string => `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":false${status}}}`;
  assert.deepEqual(admissionOutcome(ok, review(',"status":{"code":500,"message":"boom"}')), { kind: "status", status: 500 });
  assert.deepEqual(admissionOutcome(ok, review(',"status":{"code":400,"message":"bad"}')), ok);
  assert.deepEqual(admissionOutcome(ok, review("")), ok);
  assert.deepEqual(admissionOutcome(ok, '{"error":{"code":"x"}}'), ok);
  assert.deepEqual(admissionOutcome({ kind: "status", status: 404 }, review(',"status":{"code":500}')), { kind: "status", status: 404 });
});
