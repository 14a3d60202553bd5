import assert from "node:assert/strict";
import { test } from "node:test";
import { stringify } from "yaml";
import { serviceHosts } from "./objects.ts";
import { chooseKeys, keysFromYaml, keysNotes, KeysError } from "./secrets.ts";
import { caSignedCertificate, selfSignedCertificate } from "./tls.ts";

const b64 = (s: string): string => Buffer.from(s).toString("base64");

test("keys are found in an earlier dry run's YAML or in kubectl's List of the two Secrets, in the right namespace only", async () => {
  const tls = await selfSignedCertificate(serviceHosts("edge"));
  const hmac = { apiVersion: "v1", kind: "Secret", metadata: { name: "edgeloop-relay-hmac", namespace: "edge" }, data: { EDGELOOP_SECRET: b64("k".repeat(32)) } };
  const pair = { apiVersion: "v1", kind: "Secret", metadata: { name: "edgeloop-relay-tls", namespace: "edge" }, data: { "tls.crt": b64(tls.certPem), "tls.key": b64(tls.keyPem) } };
  const dryRun = [{ kind: "Namespace", metadata: { name: "edge" } }, hmac, pair].map((o) => stringify(o)).join("---\n");
  assert.deepEqual(keysFromYaml(dryRun, "edge"), { secret: "k".repeat(32), tls });
  assert.deepEqual(keysFromYaml(stringify({ apiVersion: "v1", kind: "List", items: [hmac, pair] }), "edge"), { secret: "k".repeat(32), tls });
  assert.deepEqual(keysFromYaml(dryRun, "other"), {}, "another namespace's Secrets are not these");
});

test("the HMAC key: EDGELOOP_SECRET, then the file, then the cluster, else new; a TLS pair for another namespace is refused", async () => {
  const hosts = serviceHosts("edge");
  const tls = await selfSignedCertificate(hosts);
  const chosen = await chooseKeys({ environment: "e".repeat(16), file: { secret: "f".repeat(16), tls }, cluster: { secret: "c".repeat(16) }, hosts });
  assert.deepEqual([chosen.secret, chosen.origin], ["e".repeat(16), { hmac: "environment", tls: "file" }]);
  assert.deepEqual((await chooseKeys({ file: { secret: "f".repeat(16) }, cluster: { secret: "c".repeat(16), tls }, hosts })).origin, { hmac: "file", tls: "cluster" });
  const fresh = await chooseKeys({ hosts });
  assert.deepEqual(fresh.origin, { hmac: "generated", tls: "generated" });
  assert.match(fresh.secret, /^[0-9a-f]{64}$/);
  await assert.rejects(chooseKeys({ file: { tls }, hosts: serviceHosts("prod") }), (e: unknown) => e instanceof KeysError && /not for edgeloop-relay.prod.svc/.test(e.message));
  const other = await selfSignedCertificate(hosts);
  await assert.rejects(chooseKeys({ file: { tls: { certPem: tls.certPem, keyPem: other.keyPem } }, hosts }), /tls.key does not belong to its tls.crt/);
});

test("the notes say where each key came from and which Secret holds it, never the key", async () => {
  const keys = await chooseKeys({ hosts: serviceHosts("edge") });
  const notes = keysNotes(keys, "edge", { dryRun: true, out: "edgeloop.yaml" }).join("\n");
  assert.match(notes, /HMAC key: generated .* Secret edge\/edgeloop-relay-hmac in edgeloop.yaml/);
  assert.match(notes, /TLS key and certificate .*: generated .* Secret edge\/edgeloop-relay-tls/);
  assert.match(notes, /pass --reuse-secrets edgeloop.yaml next time/);
  assert.ok(!notes.includes(keys.secret) && !notes.includes("PRIVATE KEY"));
});

test("new TLS is a serving certificate signed by a CA, kept across runs, replaced on --rotate-tls; a CA that did not sign it is refused", async () => {
  const hosts = serviceHosts("edge");
  const fresh = await chooseKeys({ hosts });
  assert.ok(fresh.tls.caPem !== undefined && fresh.tls.caPem !== fresh.tls.certPem, "a CA apart from the serving certificate");
  const hmac = { apiVersion: "v1", kind: "Secret", metadata: { name: "edgeloop-relay-tls", namespace: "edge" }, data: { "tls.crt": b64(fresh.tls.certPem), "tls.key": b64(fresh.tls.keyPem), "ca.crt": b64(fresh.tls.caPem) } };
  assert.deepEqual(keysFromYaml(stringify(hmac), "edge").tls, fresh.tls, "ca.crt is read back");
  const kept = await chooseKeys({ cluster: { tls: fresh.tls }, hosts });
  assert.deepEqual([kept.tls, kept.origin.tls], [fresh.tls, "cluster"]);
  const rotated = await chooseKeys({ cluster: { tls: fresh.tls }, file: { tls: fresh.tls }, hosts, rotateTls: true });
  assert.equal(rotated.origin.tls, "generated");
  assert.notEqual(rotated.tls.caPem, fresh.tls.caPem);
  const other = await caSignedCertificate(hosts);
  await assert.rejects(chooseKeys({ file: { tls: { ...fresh.tls, caPem: other.caPem ?? "" } }, hosts }), /ca.crt did not sign its tls.crt/);
});
