import assert from "node:assert/strict";
import { test } from "node:test";
import { collectTokens, normalise, Tokens } from "./normalise.ts";

const normalised = (value: unknown): unknown => {
  const tokens = new Tokens();
  collectTokens(value, tokens);
  return normalise(value, tokens);
};

test("uids, times and resourceVersions become placeholders; managedFields go", () => {
  const object = {
    metadata: { name: "a", uid: "0b6f2d1e-6b0a-4f3c-9d55-1a2b3c4d5e6f", resourceVersion: "123", creationTimestamp: "2026-11-27T04:00:00Z", managedFields: [{ manager: "x" }] },
    status: { renewTime: "2026-11-27T04:00:00.123456Z" },
  };
  assert.deepEqual(normalised(object), { metadata: { name: "a", uid: "<uid>", resourceVersion: "<rv>", creationTimestamp: "<time>" }, status: { renewTime: "<time>" } });
});

test("a resourceVersion of 0 or empty is kept: it means something (any, or none)", () => {
  assert.deepEqual(normalised({ metadata: { resourceVersion: "0" } }), { metadata: { resourceVersion: "0" } });
  assert.deepEqual(normalised({ metadata: { resourceVersion: "" } }), { metadata: { resourceVersion: "" } });
});

test("a generated name's suffix is replaced wherever it appears, in names and messages", () => {
  const answers = [
    { metadata: { generateName: "web-", name: "web-x7k2p" } },
    { kind: "Status", message: 'pods "web-x7k2p" not found', details: { name: "web-x7k2p" } },
  ];
  const tokens = new Tokens();
  collectTokens(answers, tokens);
  assert.deepEqual(normalise(answers, tokens), [
    { metadata: { generateName: "web-", name: "web-<generated>" } },
    { kind: "Status", message: 'pods "web-<generated>" not found', details: { name: "web-<generated>" } },
  ]);
});

test("a pod-template-hash and the names built from it are normalised", () => {
  const rs = { metadata: { name: "web-5d8f7c9b4", labels: { "pod-template-hash": "5d8f7c9b4" } } };
  assert.deepEqual(normalised(rs), { metadata: { name: "web-<hash>", labels: { "pod-template-hash": "<hash>" } } });
});

test("IPs (cluster IPs, pod IPs) become <ip>; loopback stays", () => {
  assert.deepEqual(normalised({ spec: { clusterIP: "10.96.12.7", clusterIPs: ["10.96.12.7"] }, other: "127.0.0.1" }), { spec: { clusterIP: "<ip>", clusterIPs: ["<ip>"] }, other: "127.0.0.1" });
});

test("revisions in 410 messages, node ports and PEM blocks are each server's own", () => {
  assert.deepEqual(normalised({ message: "too old resource version: 12 (34)" }), { message: "too old resource version: <rv> (<rv>)" });
  assert.deepEqual(normalised({ ports: [{ port: 80, nodePort: 31234 }] }), { ports: [{ port: 80, nodePort: "<port>" }] });
  assert.deepEqual(normalised({ data: { "ca.crt": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n" } }), { data: { "ca.crt": "<pem>" } });
});

test("keys are sorted, so that key order never differs", () => {
  assert.deepEqual(JSON.stringify(normalised({ b: 1, a: { d: 2, c: 3 } })), '{"a":{"c":3,"d":2},"b":1}');
});

test("a short token is not replaced (it would match inside unrelated text)", () => {
  const tokens = new Tokens();
  tokens.add("ab", "<x>");
  assert.equal(tokens.replace("cab"), "cab");
});

test("a Table's Age column is <age>; other cells stay", () => {
  const table = { kind: "Table", columnDefinitions: [{ name: "Name" }, { name: "Age" }], rows: [{ cells: ["a", "3s"] }] };
  assert.deepEqual(normalised(table), { kind: "Table", columnDefinitions: [{ name: "Name" }, { name: "Age" }], rows: [{ cells: ["a", "<age>"] }] });
});
