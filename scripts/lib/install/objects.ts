/**
 * Everything `install-relay` puts in a cluster, rendered from the manifest (pure): the
 * Namespace, ServiceAccount, ClusterRole/Binding, the leader-election and leader-label
 * Roles/Bindings, the HMAC and TLS Secrets, the relay Deployment (2 replicas) and Service,
 * the edge channels' ports, their Service (the leader's pod only) and the Services their
 * peers dial, the webhook configurations (caBundle set), the CRDs, and the NetworkPolicy
 * that lets only labelled namespaces call the APIs (`./network-policy.ts`).
 */
import type { ChannelSpec, KubeObject, Manifest, WebhookSpec } from "../../../protocol/index.ts";
import { RELAY_ENVIRONMENT } from "../../../relay/ops/config.ts";
import { LEADER_LABEL } from "../../../relay/ops/leader-label.ts";
import { relayIngressPolicy } from "./network-policy.ts";
import { relayRules } from "./rbac.ts";
import type { TlsPair } from "./tls.ts";

/** What the install is made of. */
export interface InstallOptions {
  readonly workerUrl: string;
  readonly namespace: string;
  readonly image: string;
  readonly replicas: number;
  /** The HMAC key shared with the Worker. */
  readonly secret: string;
  readonly tls: TlsPair;
  readonly manifest: Manifest;
  readonly crds: readonly KubeObject[];
  /** The cluster's DNS domain, for the Services that point at the relay's (default `cluster.local`). */
  readonly clusterDomain?: string;
  /** The API server's CIDRs: with them, the front admits only those and the API clients' namespaces (`./network-policy.ts`). */
  readonly frontFrom?: readonly string[];
}

export const NAME = "edgeloop-relay";
/**
 * The edge channels' Service: the relay's pods that carry the leader label, i.e. the one
 * replica serving the channels' WebSockets (a standby answers their upgrade 503).
 */
export const CHANNELS_SERVICE = `${NAME}-channels`;
const LABELS = { "app.kubernetes.io/name": NAME, "app.kubernetes.io/part-of": "edgeloop" };
const FRONT_PORT = 8443;
const OPS_PORT = 9090;
/**
 * The controllers' APIs over plain HTTP, on the Service and the container alike: the
 * Worker's `EDGELOOP_API_ADDRESS` is `edgeloop-relay.<namespace>:8080`.
 */
export const API_PORT = 8080;

const b64 = (text: string): string => Buffer.from(text, "utf8").toString("base64");

/** The DNS names the front's certificate must carry. */
export function serviceHosts(namespace: string): string[] {
  return [`${NAME}.${namespace}.svc`, `${NAME}.${namespace}.svc.cluster.local`, `${NAME}.${namespace}`];
}

function meta(name: string, namespace?: string): KubeObject["metadata"] {
  return { name, ...(namespace ? { namespace } : {}), labels: { ...LABELS } };
}

/** Every edge channel the manifest declares. */
function channelsOf(manifest: Manifest): ChannelSpec[] {
  return manifest.controllers.flatMap((controller) => controller.channels);
}

/** The relay's own port names and ports: a channel may take none of them. */
const OWN_PORTS: readonly { name: string; port: number }[] = [
  { name: "front", port: FRONT_PORT },
  { name: "https", port: 443 },
  { name: "api", port: API_PORT },
  { name: "http-api", port: API_PORT },
  { name: "metrics", port: OPS_PORT },
];

/** The channels, refused when one would take a port name or number the relay's pod or Service already uses. */
function installedChannels(manifest: Manifest): ChannelSpec[] {
  const channels = channelsOf(manifest);
  for (const channel of channels) {
    const clash = OWN_PORTS.find((own) => own.name === channel.name || own.port === channel.port);
    if (clash) throw new Error(`channel ${channel.name} (port ${channel.port}) clashes with the relay's own port ${clash.name} (${clash.port})`);
  }
  return channels;
}

/** The relay's flags for each channel: its port, on the pod IP (as the API port). */
function channelArgs(channels: readonly ChannelSpec[]): string[] {
  return channels.flatMap((channel) => [`--${channel.name}-host`, "$(POD_IP)", `--${channel.name}-port`, String(channel.port)]);
}

/** Each channel's port on a Service: the same number as the relay's container port. */
function channelPorts(channels: readonly ChannelSpec[]): { name: string; port: number; targetPort: number }[] {
  return channels.map((channel) => ({ name: channel.name, port: channel.port, targetPort: channel.port }));
}

/**
 * The channels' Service: the relay's pods labelled leader (relay/ops/leader-label.ts), so a
 * peer lands on the replica that serves it at its first try instead of on a standby half
 * the time. None without channels.
 */
function channelsService(channels: readonly ChannelSpec[], namespace: string): KubeObject[] {
  if (channels.length === 0) return [];
  return [{ apiVersion: "v1", kind: "Service", metadata: meta(CHANNELS_SERVICE, namespace), spec: { selector: { "app.kubernetes.io/name": NAME, [LEADER_LABEL]: "true" }, ports: channelPorts(channels) } } as KubeObject];
}

/**
 * For each channel whose peers dial a Service of their own (their manifests name it): that
 * Service, an ExternalName to the channels' Service (the leader's pod), with the channel's
 * port, and its Namespace when it is not the relay's. A peer's default address then
 * reaches the leading relay unchanged.
 */
function peerServices(channels: readonly ChannelSpec[], namespace: string, clusterDomain: string): KubeObject[] {
  const target = `${CHANNELS_SERVICE}.${namespace}.svc.${clusterDomain}`;
  const namespaces = [...new Set(channels.flatMap((channel) => (channel.service && channel.service.namespace !== namespace ? [channel.service.namespace] : [])))];
  return [
    ...namespaces.map((name) => ({ apiVersion: "v1", kind: "Namespace", metadata: meta(name) }) as KubeObject),
    ...channels.flatMap((channel) =>
      channel.service
        ? [{ apiVersion: "v1", kind: "Service", metadata: meta(channel.service.name, channel.service.namespace), spec: { type: "ExternalName", externalName: target, ports: [{ name: channel.name, port: channel.port, targetPort: channel.port }] } } as KubeObject]
        : [],
    ),
  ];
}

function deployment(options: InstallOptions, channels: readonly ChannelSpec[]): KubeObject {
  const container = {
    name: "relay",
    image: options.image,
    args: [
      "--worker-url", options.workerUrl,
      "--leader-elect",
      // The pod IP (downward API), never 0.0.0.0: the Service and the kubelet's probes reach it there.
      "--ops-host", "$(POD_IP)", "--ops-port", String(OPS_PORT),
      "--front-host", "$(POD_IP)", "--front-port", String(FRONT_PORT), "--tls-cert", "/tls/tls.crt", "--tls-key", "/tls/tls.key",
      "--api-host", "$(POD_IP)", "--api-port", String(API_PORT),
      ...channelArgs(channels),
    ],
    env: [
      { name: "EDGELOOP_SECRET", valueFrom: { secretKeyRef: { name: `${NAME}-hmac`, key: "EDGELOOP_SECRET" } } },
      { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
      { name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
      { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
      ...Object.entries(RELAY_ENVIRONMENT).map(([name, value]) => ({ name, value })),
    ],
    ports: [{ name: "front", containerPort: FRONT_PORT }, { name: "api", containerPort: API_PORT }, { name: "metrics", containerPort: OPS_PORT }, ...channels.map((channel) => ({ name: channel.name, containerPort: channel.port }))],
    livenessProbe: { httpGet: { path: "/livez", port: OPS_PORT }, periodSeconds: 10 },
    // Not the Worker: a relay whose Worker is away still serves admission (ADR 0034), and an unready pod would leave the webhooks' Service without endpoints.
    readinessProbe: { httpGet: { path: "/readyz?exclude=worker", port: OPS_PORT }, periodSeconds: 5 },
    resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "512Mi" } },
    securityContext: { runAsNonRoot: true, runAsUser: 65532, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] }, seccompProfile: { type: "RuntimeDefault" } },
    volumeMounts: [{ name: "tls", mountPath: "/tls", readOnly: true }],
  };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: meta(NAME, options.namespace),
    spec: {
      replicas: options.replicas,
      selector: { matchLabels: { "app.kubernetes.io/name": NAME } },
      template: {
        metadata: { labels: { ...LABELS } },
        spec: {
          serviceAccountName: NAME,
          // Pod Security Standard "restricted" (scripts/lib/install/pss.ts checks it): the image's user 65532, no root group, the runtime's seccomp profile.
          securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532, seccompProfile: { type: "RuntimeDefault" } },
          containers: [container],
          volumes: [{ name: "tls", secret: { secretName: `${NAME}-tls` } }],
          affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: { "app.kubernetes.io/name": NAME } } } }] } },
        },
      },
    },
  } as KubeObject;
}

/** How the API server reaches the relay's front for one webhook. */
export type ClientConfig = (hook: WebhookSpec) => Record<string, unknown>;

/** The webhook's namespaceSelector, and never the relay's own namespace: the relay must not wait on itself. */
function namespaceSelectorOf(hook: WebhookSpec, relayNamespace: string | undefined): Record<string, unknown> {
  const own = relayNamespace ? [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: [relayNamespace] }] : [];
  const matchExpressions = [...(hook.namespaceSelector?.matchExpressions ?? []), ...own];
  const selector = { ...(hook.namespaceSelector?.matchLabels ? { matchLabels: hook.namespaceSelector.matchLabels } : {}), ...(matchExpressions.length ? { matchExpressions } : {}) };
  return Object.keys(selector).length ? { namespaceSelector: selector } : {};
}

/** A CEL string literal (single-quoted): backslashes and quotes escaped. */
function celString(value: string): string {
  return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

/** The webhook's `exemptUsers` as a matchCondition (GA since Kubernetes 1.30): kube-apiserver does not call it for them, up or down. */
function matchConditionsOf(hook: WebhookSpec): Record<string, unknown> {
  if (!hook.exemptUsers) return {};
  return { matchConditions: [{ name: "not-exempt-user", expression: `!(request.userInfo.username in [${hook.exemptUsers.map(celString).join(", ")}])` }] };
}

/** The mutating and validating configurations of `hooks` (none when there are none). */
export function webhookConfigurations(hooks: readonly WebhookSpec[], clientConfig: ClientConfig, caPem: string, relayNamespace?: string): KubeObject[] {
  return (["mutating", "validating"] as const)
    .map((type) => webhookConfiguration(type, hooks.filter((h) => h.type === type), clientConfig, caPem, relayNamespace))
    .filter((o): o is KubeObject => o !== undefined);
}

function webhookConfiguration(type: "mutating" | "validating", hooks: readonly WebhookSpec[], clientConfig: ClientConfig, caPem: string, relayNamespace: string | undefined): KubeObject | undefined {
  if (hooks.length === 0) return undefined;
  const caBundle = b64(caPem);
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: type === "mutating" ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration",
    metadata: meta(`edgeloop-${type}`),
    webhooks: hooks.map((hook) => ({
      name: `${hook.name}.edgeloop.dev`,
      clientConfig: { ...clientConfig(hook), caBundle },
      rules: hook.rules,
      failurePolicy: hook.failurePolicy,
      timeoutSeconds: hook.timeoutSeconds,
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      ...(hook.objectSelector ? { objectSelector: hook.objectSelector } : {}),
      ...namespaceSelectorOf(hook, relayNamespace),
      ...matchConditionsOf(hook),
    })),
  } as KubeObject;
}

/** The Lease the relay replicas elect their leader with (relay/ops/config.ts `--lease-name` default). */
export const LEASE_NAME = NAME;

/**
 * What leader election sends (relay/ops/leader.ts): GET the Lease, POST it when missing, PUT
 * it to renew, take over or release. A create cannot be limited to a name (RBAC knows no
 * name before the object exists); reading and updating are limited to the one Lease.
 */
export const LEADER_RULES = [
  { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
  { apiGroups: ["coordination.k8s.io"], resources: ["leases"], resourceNames: [LEASE_NAME], verbs: ["get", "update"] },
] as const;

/**
 * What the leader label sends (relay/ops/leader-label.ts): a merge PATCH of the relay's own
 * pod, never a read (a null label removes it when present). Any pod of the relay's
 * namespace: resourceNames cannot be used, since the relay's pod names are not known when
 * installing (its ReplicaSet makes them up, anew on every rollout).
 */
export const LEADER_LABEL_RULES = [{ apiGroups: [""], resources: ["pods"], verbs: ["patch"] }] as const;

/** The leader label's Role and RoleBinding. */
export const LEADER_LABEL_ROLE = `${NAME}-leader-label`;

/**
 * Who the relay is in the cluster and what it may do: the Namespace, the ServiceAccount,
 * the ClusterRole from the manifest's permissions and its binding, the leader-election
 * and leader-label Roles and their bindings. What `npm start -- --kubeconfig` installs for
 * the relay it runs on this machine (ADR 0019); `installObjects` adds the rest.
 */
export function relayAccessObjects(namespace: string, manifest: Manifest): KubeObject[] {
  const subjects = [{ kind: "ServiceAccount", name: NAME, namespace }];
  return [
    { apiVersion: "v1", kind: "Namespace", metadata: meta(namespace) } as KubeObject,
    { apiVersion: "v1", kind: "ServiceAccount", metadata: meta(NAME, namespace) } as KubeObject,
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: meta(NAME), rules: relayRules(manifest) } as KubeObject,
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", metadata: meta(NAME), roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: NAME }, subjects } as KubeObject,
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: meta(`${NAME}-leader`, namespace), rules: LEADER_RULES } as unknown as KubeObject,
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", metadata: meta(`${NAME}-leader`, namespace), roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: `${NAME}-leader` }, subjects } as KubeObject,
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: meta(LEADER_LABEL_ROLE, namespace), rules: LEADER_LABEL_RULES } as unknown as KubeObject,
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", metadata: meta(LEADER_LABEL_ROLE, namespace), roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: LEADER_LABEL_ROLE }, subjects } as KubeObject,
  ];
}

/** Every object of the install, in apply order. */
export function installObjects(options: InstallOptions): KubeObject[] {
  const ns = options.namespace;
  const hooks = options.manifest.controllers.flatMap((c) => c.webhooks);
  const channels = installedChannels(options.manifest);
  const objects: (KubeObject | undefined)[] = [
    ...options.crds,
    ...relayAccessObjects(ns, options.manifest),
    { apiVersion: "v1", kind: "Secret", metadata: meta(`${NAME}-hmac`, ns), type: "Opaque", data: { EDGELOOP_SECRET: b64(options.secret) } } as KubeObject,
    { apiVersion: "v1", kind: "Secret", metadata: meta(`${NAME}-tls`, ns), type: "kubernetes.io/tls", data: { "tls.crt": b64(options.tls.certPem), "tls.key": b64(options.tls.keyPem), ...(options.tls.caPem ? { "ca.crt": b64(options.tls.caPem) } : {}) } } as KubeObject,
    { apiVersion: "v1", kind: "Service", metadata: meta(NAME, ns), spec: { selector: { "app.kubernetes.io/name": NAME }, ports: [{ name: "https", port: 443, targetPort: FRONT_PORT }, { name: "http-api", port: API_PORT, targetPort: API_PORT }, { name: "metrics", port: OPS_PORT, targetPort: OPS_PORT }] } } as KubeObject,
    ...channelsService(channels, ns),
    deployment(options, channels),
    relayIngressPolicy({ name: NAME, namespace: ns, labels: LABELS, podLabels: { "app.kubernetes.io/name": NAME }, apiPort: API_PORT, frontPort: FRONT_PORT, opsPort: OPS_PORT, channelPorts: channels.map((channel) => channel.port), ...(options.frontFrom ? { frontFrom: options.frontFrom } : {}) }),
    ...peerServices(channels, ns, options.clusterDomain ?? "cluster.local"),
    ...webhookConfigurations(hooks, (hook) => ({ service: { namespace: ns, name: NAME, path: `/admission/${hook.name}`, port: 443 } }), options.tls.caPem ?? options.tls.certPem, ns),
  ];
  return objects.filter((o): o is KubeObject => o !== undefined);
}
