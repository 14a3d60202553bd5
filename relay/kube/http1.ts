/**
 * HTTP/1.1 to the API server. client-node hands every request an undici Agent that offers
 * HTTP/2 (undici 8 enables it by default) and kube-apiserver accepts it; when the API
 * server restarts, requests sent on the old HTTP/2 session after its GOAWAY can hang until
 * the 30 s headers timeout (nodejs/undici#3140), and a relay whose Lease renewals hang that
 * long loses its Lease. Seen on the real control plane in about 1 of 8 kube-apiserver
 * restarts (test/cluster/faults.test.ts). client-go speaks HTTP/2 too, but its transport
 * pings and drops dead sessions; here the connections are HTTP/1.1, each request on a
 * connection of its own or a kept-alive one that a restart closes.
 */
import type { RequestOptions as HttpsOptions } from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";
import { Agent } from "undici";

/** Makes every request `kc` authenticates (the relay's client, client-node's watches) go over HTTP/1.1, with the same TLS settings. */
export function http1Only(kc: KubeConfig): KubeConfig {
  let agent: Promise<Agent> | undefined;
  const authenticate = kc.applySecurityAuthentication.bind(kc);
  // Replaced on this instance only: the TLS settings (CA, client certificate) are read from the KubeConfig once, as client-node does.
  kc.applySecurityAuthentication = async (context): Promise<void> => {
    await authenticate(context);
    // No dispatcher: plain HTTP (the sim), where no HTTP/2 is negotiated.
    if (!context.getDispatcher()) return;
    agent ??= tlsAgent(kc);
    context.setDispatcher(await agent);
  };
  return kc;
}

async function tlsAgent(kc: KubeConfig): Promise<Agent> {
  const tls: HttpsOptions = {};
  await kc.applyToHTTPSOptions(tls);
  return new Agent({
    allowH2: false,
    connect: {
      ...(tls.ca ? { ca: tls.ca } : {}),
      ...(tls.cert ? { cert: tls.cert } : {}),
      ...(tls.key ? { key: tls.key } : {}),
      ...(tls.servername ? { servername: tls.servername } : {}),
      rejectUnauthorized: tls.rejectUnauthorized ?? true,
      keepAlive: true,
      keepAliveInitialDelay: 30_000,
    },
  });
}
