import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { test } from "node:test";
import { apiServerHosts, createPki, subjectOf } from "./pki.ts";

test("a client certificate's subject carries the user as CN and each group as O, escaped", () => {
  assert.equal(subjectOf({ user: "edgeloop-admin", groups: ["system:masters"] }), "O=system:masters, CN=edgeloop-admin");
  assert.equal(subjectOf({ user: "a,b" }), "CN=a\\,b");
});

test("the CA signs the API server's serving certificate for loopback and the kubernetes Service's names, and a client certificate per identity", async () => {
  const pki = await createPki("10.96.0.1", { admin: { user: "edgeloop-admin", groups: ["system:masters"] } });
  const ca = new X509Certificate(pki.ca.certPem);
  const server = new X509Certificate(pki.apiServer.certPem);
  assert.ok(server.verify(ca.publicKey));
  assert.ok(server.checkIP("127.0.0.1") && server.checkIP("10.96.0.1"));
  assert.ok(server.checkHost("kubernetes.default.svc.cluster.local"));
  assert.deepEqual(apiServerHosts("10.96.0.1").slice(0, 2), ["127.0.0.1", "localhost"]);
  const admin = new X509Certificate(pki.clients.admin?.certPem ?? "");
  assert.ok(admin.verify(ca.publicKey));
  assert.match(admin.subject, /O=system:masters/);
  assert.match(admin.subject, /CN=edgeloop-admin/);
  assert.equal(Object.keys(pki.clients).length, 1);
  assert.match(pki.serviceAccount.publicPem, /^-----BEGIN PUBLIC KEY-----/);
});
