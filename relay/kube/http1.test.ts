import assert from "node:assert/strict";
import { once } from "node:events";
import { createSecureServer } from "node:http2";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { selfSignedCertificate } from "../../test/support/tls.ts";
import { KubeClient } from "./client.ts";
import { http1Only } from "./http1.ts";

let server: ReturnType<typeof createSecureServer>;
let kubeconfig: () => KubeConfig;

before(async () => {
  const tls = await selfSignedCertificate(["127.0.0.1"]);
  // As kube-apiserver: HTTP/2 offered by ALPN, HTTP/1.1 accepted.
  server = createSecureServer({ cert: tls.certPem, key: tls.keyPem, allowHTTP1: true }, (req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ httpVersion: req.httpVersion }));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  kubeconfig = () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "c", server: `https://127.0.0.1:${port}`, caData: Buffer.from(tls.certPem).toString("base64") }],
      users: [{ name: "u", token: "t" }],
      contexts: [{ name: "x", cluster: "c", user: "u" }],
      currentContext: "x",
    });
    return kc;
  };
});

after(() => server.close());

test("client-node's own dispatcher speaks HTTP/2 to a server that offers it (what http1Only avoids)", async () => {
  const answer = (await new KubeClient(kubeconfig()).request("GET", "/version")) as { httpVersion: string };
  assert.equal(answer.httpVersion, "2.0");
});

test("with http1Only, the same requests go over HTTP/1.1, with the KubeConfig's TLS settings", async () => {
  const answer = (await new KubeClient(http1Only(kubeconfig())).request("GET", "/version")) as { httpVersion: string };
  assert.equal(answer.httpVersion, "1.1");
});
