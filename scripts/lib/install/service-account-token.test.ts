import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { parse } from "yaml";
import { renewalDelayMs, requestToken, serviceAccountUser, TokenKeeper, tokenFileKubeconfig } from "./service-account-token.ts";

test("a TokenRequest: POSTed to the ServiceAccount's token subresource, its answer parsed", async () => {
  const sent: { method: string; path: string; body: unknown }[] = [];
  const admin = {
    request: async (method: string, path: string, options?: { body?: unknown }): Promise<unknown> => {
      sent.push({ method, path, body: options?.body });
      return { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", status: { token: "t0k3n", expirationTimestamp: "2030-01-01T01:00:00Z" } };
    },
  };
  const token = await requestToken(admin, "edgeloop", "edgeloop-relay", 3600);
  assert.deepEqual(token, { token: "t0k3n", expires: new Date("2030-01-01T01:00:00Z") });
  assert.deepEqual(sent, [{ method: "POST", path: "/api/v1/namespaces/edgeloop/serviceaccounts/edgeloop-relay/token", body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } } }]);
  await assert.rejects(requestToken({ request: async () => ({ status: {} }) }, "edgeloop", "x"), /the TokenRequest answer for edgeloop\/x holds no token/);
  assert.equal(serviceAccountUser("edgeloop", "edgeloop-relay"), "system:serviceaccount:edgeloop:edgeloop-relay");
});

test("renewed once 80% of the token's life has passed", () => {
  assert.equal(renewalDelayMs(new Date("2030-01-01T00:00:00Z"), new Date("2030-01-01T01:00:00Z")), 2_880_000);
  assert.equal(renewalDelayMs(new Date("2030-01-01T00:00:00Z"), new Date("2029-12-31T00:00:00Z")), 0, "an expired one at once");
});

test("the relay's kubeconfig: the admin's server and CA, the token file as its only credential; client-node reads the token from it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-token-"));
  try {
    const admin = new KubeConfig();
    admin.loadFromOptions({
      clusters: [{ name: "c", server: "https://127.0.0.1:6443", caData: "Q0E=" }],
      users: [{ name: "admin", certData: "Y2VydA==", keyData: "a2V5" }],
      contexts: [{ name: "admin", cluster: "c", user: "admin" }],
      currentContext: "admin",
    });
    let calls = 0;
    const keeper = await TokenKeeper.start({
      admin: { request: async () => ({ status: { token: `token-${++calls}`, expirationTimestamp: new Date(Date.now() + 3_600_000).toISOString() } }) },
      namespace: "edgeloop",
      serviceAccount: "edgeloop-relay",
      tokenFile: join(dir, "token"),
    });
    keeper.stop();
    assert.equal(readFileSync(join(dir, "token"), "utf8"), "token-1");
    const text = tokenFileKubeconfig(admin, join(dir, "token"), "system:serviceaccount:edgeloop:edgeloop-relay");
    const yaml = parse(text) as { clusters: { cluster: Record<string, unknown> }[]; users: { user: Record<string, unknown> }[] };
    assert.deepEqual(yaml.clusters[0]?.cluster, { server: "https://127.0.0.1:6443", "certificate-authority-data": "Q0E=" });
    assert.deepEqual(yaml.users[0]?.user, { "auth-provider": { name: "tokenFile", config: { tokenFile: join(dir, "token") } } }, "nothing of the admin's credentials");
    const relay = new KubeConfig();
    relay.loadFromString(text);
    const headers: Record<string, string> = {};
    await relay.applyToHTTPSOptions({ headers });
    assert.equal(headers.Authorization, "Bearer token-1");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
