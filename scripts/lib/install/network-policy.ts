/**
 * The relay's ingress NetworkPolicy (issue 28, "must" 3). The controllers' APIs are
 * unauthenticated (NerveX's replicas API is called by a training job's coordinator with
 * no credentials, as upstream's was), so who may call them is decided by the network:
 * the plain API port admits only pods of namespaces labelled {@link API_CLIENTS_LABEL}
 * (the namespaces that run NerveX jobs; the user labels them). The TLS front serves the
 * admission webhooks, which the API server calls from an address no pod selector names,
 * and the same APIs: it admits the labelled namespaces and the API server's CIDRs when
 * given, else anyone (and the install says so). The probes and metrics port and the edge
 * channels' ports stay open (the kubelet, Prometheus, edge peers outside the cluster).
 * Egress is not restricted: the relay reaches the API server and the Worker.
 */
import { isIP } from "node:net";
import type { KubeObject } from "../../../protocol/index.ts";

/** The namespace label that lets a namespace's pods call the relay's APIs: `kubectl label namespace NS edgeloop.dev/api-clients=true`. */
export const API_CLIENTS_LABEL = "edgeloop.dev/api-clients";
export const API_CLIENTS_VALUE = "true";

/** What the policy is rendered from. */
export interface IngressPolicyInput {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The relay pods' labels the policy selects. */
  readonly podLabels: Readonly<Record<string, string>>;
  readonly apiPort: number;
  readonly frontPort: number;
  readonly opsPort: number;
  readonly channelPorts: readonly number[];
  /** The API server's addresses (CIDRs): when given, only they and the labelled namespaces reach the front. */
  readonly frontFrom?: readonly string[];
}

/** Whether `text` is an IPv4 or IPv6 CIDR (`10.0.0.0/8`, `fd00::/64`). */
export function isCidr(text: string): boolean {
  const [address = "", prefix, extra] = text.split("/");
  if (prefix === undefined || extra !== undefined || !/^\d{1,3}$/.test(prefix)) return false;
  const version = isIP(address);
  return version !== 0 && Number(prefix) <= (version === 4 ? 32 : 128);
}

const tcp = (port: number): { protocol: string; port: number } => ({ protocol: "TCP", port });

/** The relay's ingress NetworkPolicy. */
export function relayIngressPolicy(input: IngressPolicyInput): KubeObject {
  const clients = { namespaceSelector: { matchLabels: { [API_CLIENTS_LABEL]: API_CLIENTS_VALUE } } };
  const front = input.frontFrom && input.frontFrom.length > 0 ? { from: [clients, ...input.frontFrom.map((cidr) => ({ ipBlock: { cidr } }))], ports: [tcp(input.frontPort)] } : { ports: [tcp(input.frontPort)] };
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: input.name, namespace: input.namespace, labels: { ...input.labels } },
    spec: {
      podSelector: { matchLabels: { ...input.podLabels } },
      policyTypes: ["Ingress"],
      ingress: [{ from: [clients], ports: [tcp(input.apiPort)] }, front, { ports: [tcp(input.opsPort), ...input.channelPorts.map(tcp)] }],
    },
  } as KubeObject;
}
