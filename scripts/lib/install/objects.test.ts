import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { once } from "node:events";
import { request } from "node:https";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { createRegistry } from "../../../functions/registry.ts";
import { WebhookSpec, type Manifest } from "../../../protocol/index.ts";
import { loadControllers } from "../controllers.ts";
import { installObjects, LEADER_LABEL_ROLE, LEASE_NAME, relayAccessObjects, serviceHosts, webhookConfigurations } from "./objects.ts";
import { LEADER_LABEL } from "../../../relay/ops/leader-label.ts";
import { relayRules } from "./rbac.ts";
import { parseCli } from "../../../cli/args.ts";
import { RELAY_OPTIONS, RelayFlags, splitChannelFlags } from "../../../relay/ops/config.ts";
import { caSignedCertificate, selfSignedCertificate } from "./tls.ts";

const manifest: Manifest = {
  version: "v1",
  controllers: [
    {
      name: "jobs",
      delivery: "snapshot", related: [],
      parent: { apiVersion: "example.dev/v1", kind: "Job" },
      watches: [
        { apiVersion: "example.dev/v1", kind: "Job", resource: "jobs", namespaced: true, mapping: { by: "self" } },
        { apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "owner", owner: { apiVersion: "example.dev/v1", kind: "Job" } } },
        { apiVersion: "example.dev/v1", kind: "Model", resource: "models", namespaced: true, mapping: { by: "reference", paths: ["spec.model"] } },
      ],
      webhooks: [
        { name: "job-defaults", type: "mutating", failurePolicy: "Fail", timeoutSeconds: 5, related: [], decidedAt: "worker", rules: [{ operations: ["CREATE"], apiGroups: ["example.dev"], apiVersions: ["v1"], resources: ["jobs"] }] },
      ],
      apis: [],
      channels: [],
      permissions: [
        { group: "example.dev", resource: "jobs", access: ["read", "status"] },
        { group: "", resource: "pods", access: ["read", "write"] },
        { group: "example.dev", resource: "models", access: ["read"] },
      ],
    },
    {
      name: "gang",
      delivery: "events", related: [],
      watches: [{ apiVersion: "v1", kind: "Pod", resource: "pods", namespaced: true, mapping: { by: "self" } }],
      webhooks: [],
      apis: [],
      channels: [],
      permissions: [
        { group: "", resource: "pods", access: ["read"] },
        { group: "", resource: "pods/binding", access: ["create"] },
      ],
    },
  ],
};

function verbs(group: string, resource: string): string[] {
  return relayRules(manifest).filter((r) => r.apiGroups.includes(group) && r.resources.includes(resource)).flatMap((r) => [...r.verbs]).sort();
}

test("RBAC is built from the declared permissions alone: read, write, status only, one verb only; creating Events is the relay's own", () => {
  assert.deepEqual(verbs("example.dev", "models"), ["list", "watch"], "declared read-only: what an informer sends");
  assert.deepEqual(verbs("", "pods"), ["create", "delete", "list", "patch", "watch"], "two controllers' grants merge");
  assert.deepEqual(verbs("example.dev", "jobs/status"), ["patch"], "the relay writes /status with a merge PATCH and never reads it there");
  assert.deepEqual(verbs("example.dev", "jobs"), ["list", "watch"], "status only: the parent object itself is never written");
  assert.deepEqual(verbs("", "pods/binding"), ["create"]);
  assert.deepEqual(verbs("", "events"), ["create"], "the relay POSTs Events, never patches one");
  assert.deepEqual(verbs("events.k8s.io", "events"), [], "nor uses events.k8s.io");
  assert.deepEqual(verbs("", "secrets"), [], "nothing that is not declared");
  const undeclared: Manifest = { version: "v1", controllers: manifest.controllers.map((c) => ({ ...c, permissions: [] })) };
  assert.deepEqual(relayRules(undeclared).flatMap((r) => r.resources).sort(), ["events"], "watches and mappings grant nothing by themselves");
  const narrow: Manifest = { version: "v1", controllers: [{ ...manifest.controllers[0]!, permissions: [{ group: "", resource: "nodes", access: ["read", "patch"] }, { group: "batch", resource: "jobs", access: ["get", "delete"] }] }] };
  const of = (group: string, resource: string): string[] => relayRules(narrow).filter((r) => r.apiGroups.includes(group) && r.resources.includes(resource)).flatMap((r) => [...r.verbs]).sort();
  assert.deepEqual(of("", "nodes"), ["list", "patch", "watch"], "patch only: no create, no delete");
  assert.deepEqual(of("batch", "jobs"), ["delete", "get"], "read one by name, never listed nor watched");
  assert.deepEqual(verbs("authentication.k8s.io", "tokenreviews"), [], "no API with readers: no reviews");
  const reading: Manifest = { version: "v1", controllers: [{ ...manifest.controllers[0]!, apis: [{ name: "rows", pathPrefix: "/v1/rows", related: [], timeoutSeconds: 10, readers: { group: "", resource: "pods", verb: "list", items: "items" } }] }] };
  const reviews = (group: string, resource: string): string[] => relayRules(reading).filter((r) => r.apiGroups.includes(group) && r.resources.includes(resource)).flatMap((r) => [...r.verbs]).sort();
  assert.deepEqual([reviews("authentication.k8s.io", "tokenreviews"), reviews("authorization.k8s.io", "subjectaccessreviews")], [["create"], ["create"]], "an API with readers: the front reviews its callers");
});

test("the shipped controllers' ClusterRole: Sedna children written, Sedna parents' status only, Models and Datasets read-only, binding for the gang scheduler", async () => {
  const rules = relayRules(createRegistry(await loadControllers()).manifest);
  const of = (group: string, resource: string): string[] => rules.filter((r) => r.apiGroups.includes(group) && r.resources.includes(resource)).flatMap((r) => [...r.verbs]).sort();
  assert.deepEqual(of("", "pods"), ["create", "delete", "get", "list", "patch", "watch"], "get: a deadline's delete reads a pod's root owner up from it");
  assert.deepEqual(of("apps", "deployments"), ["create", "delete", "list", "patch", "watch"]);
  assert.deepEqual(of("sedna.io", "federatedlearningjobs"), ["list", "watch"]);
  assert.deepEqual(of("sedna.io", "federatedlearningjobs/status"), ["patch"]);
  assert.deepEqual(of("sedna.io", "models"), ["list", "watch"]);
  assert.deepEqual(of("", "pods/binding"), ["create"], "the gang scheduler binds, and may do nothing else to bindings");
  assert.deepEqual(of("", "pods/status"), ["patch"], "PodScheduled conditions");
  assert.deepEqual(of("batch", "jobs"), ["delete", "get", "list", "watch"], "Jobs watched for the groups they announce (ADR 0025); a deadline reads and deletes the root Job; nothing else");
  assert.deepEqual(of("", "nodes"), ["list", "patch", "watch"], "edge autonomy patches its marks on Nodes; nothing creates or deletes a Node");
  assert.deepEqual(of("", "services"), ["create", "delete", "list", "patch", "watch"], "Sedna patches its Services in place");
  for (const group of ["scheduling.x-k8s.io", "scheduling.k8s.io"]) {
    assert.deepEqual(of(group, "podgroups"), ["list", "watch"], `the gang scheduler reads ${group} PodGroups, and writes nothing of them but their status`);
    assert.deepEqual(of(group, "podgroups/status"), ["patch"]);
  }
  assert.deepEqual(of("scheduling.k8s.io", "workloads"), [], "a Workload is not read: its PodGroups carry their policy");
});

test("finalizers: granted only where a controller declares them, never inferred from status or children", async () => {
  const shipped = relayRules(createRegistry(await loadControllers()).manifest);
  assert.deepEqual(shipped.flatMap((r) => r.resources).filter((r) => r.endsWith("/finalizers")), [], "no shipped controller declares finalizers");
  assert.deepEqual(relayRules(manifest).flatMap((r) => r.resources).filter((r) => r.endsWith("/finalizers")), []);
  const declaring: Manifest = { version: "v1", controllers: [{ ...manifest.controllers[0]!, permissions: [{ group: "example.dev", resource: "jobs/finalizers", access: ["write"] }] }] };
  const rule = relayRules(declaring).find((r) => r.resources.includes("jobs/finalizers"));
  assert.deepEqual(rule?.verbs, ["update"], "declared: the blockOwnerDeletion check (update on the owner's finalizers) can pass, and nothing else");
});

test("the install: webhook configurations point at the relay Service with the CA bundle; the Deployment is leader-elected", async () => {
  const tls = await selfSignedCertificate(serviceHosts("edge"));
  const objects = installObjects({ workerUrl: "https://w.example", namespace: "edge", image: "relay:1", replicas: 2, secret: "0123456789abcdef", tls, manifest, crds: [] });
  const kinds = objects.map((o) => o.kind);
  assert.deepEqual(kinds, ["Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Role", "RoleBinding", "Secret", "Secret", "Service", "Deployment", "NetworkPolicy", "MutatingWebhookConfiguration"]);
  const hook = (objects.find((o) => o.kind === "MutatingWebhookConfiguration") as unknown as { webhooks: { clientConfig: { service: Record<string, unknown>; caBundle: string }; failurePolicy: string }[] }).webhooks[0];
  assert.deepEqual(hook?.clientConfig.service, { namespace: "edge", name: "edgeloop-relay", path: "/admission/job-defaults", port: 443 });
  assert.equal(Buffer.from(hook?.clientConfig.caBundle ?? "", "base64").toString(), tls.certPem);
  assert.equal(hook?.failurePolicy, "Fail");
  const deployment = objects.find((o) => o.kind === "Deployment") as unknown as { spec: { replicas: number; template: { spec: { containers: { args: string[] }[] } } } };
  assert.equal(deployment.spec.replicas, 2);
  assert.ok(deployment.spec.template.spec.containers[0]?.args.includes("--leader-elect"));
  const container = (deployment.spec.template.spec.containers[0] ?? { args: [] }) as { args: string[]; env?: { name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[] };
  assert.equal(container.args[container.args.indexOf("--front-host") + 1], "$(POD_IP)", "the front binds to the pod IP");
  assert.ok(!container.args.includes("0.0.0.0"), "never every interface");
  assert.equal(container.env?.find((e) => e.name === "POD_IP")?.valueFrom?.fieldRef?.fieldPath, "status.podIP");
});

test("the leader-election Role: create any Lease (RBAC cannot name an object not yet made), get and update only the relay's", () => {
  const role = relayAccessObjects("edge", manifest).find((o) => o.kind === "Role" && o.metadata.name === "edgeloop-relay-leader") as unknown as { metadata: { namespace: string }; rules: { verbs: string[]; resourceNames?: string[] }[] };
  assert.equal(role.metadata.namespace, "edge");
  assert.deepEqual(role.rules.map((r) => ({ verbs: r.verbs, names: r.resourceNames ?? null })), [{ verbs: ["create"], names: null }, { verbs: ["get", "update"], names: [LEASE_NAME] }]);
  assert.equal(LEASE_NAME, "edgeloop-relay", "the relay's --lease-name default");
  const objects = installObjects({ workerUrl: "https://w.example", namespace: "edge", image: "relay:1", replicas: 2, secret: "0123456789abcdef", tls: { certPem: "c", keyPem: "k" }, manifest, crds: [] });
  assert.deepEqual(objects.slice(0, 8), relayAccessObjects("edge", manifest), "install-relay renders the same access objects npm start -- --kubeconfig applies");
});

test("the leader-label Role: patch pods in the relay's namespace only (any pod: the relay's pod names are not known when installing), bound to the relay's ServiceAccount", () => {
  const access = relayAccessObjects("edge", manifest);
  const role = access.find((o) => o.kind === "Role" && o.metadata.name === LEADER_LABEL_ROLE) as unknown as { metadata: { namespace: string }; rules: unknown };
  assert.equal(role.metadata.namespace, "edge");
  assert.deepEqual(role.rules, [{ apiGroups: [""], resources: ["pods"], verbs: ["patch"] }], "a merge patch never reads: no get");
  const binding = access.find((o) => o.kind === "RoleBinding" && o.metadata.name === LEADER_LABEL_ROLE) as unknown as { metadata: { namespace: string }; roleRef: unknown; subjects: unknown };
  assert.equal(binding.metadata.namespace, "edge");
  assert.deepEqual(binding.roleRef, { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: LEADER_LABEL_ROLE });
  assert.deepEqual(binding.subjects, [{ kind: "ServiceAccount", name: "edgeloop-relay", namespace: "edge" }]);
});

test("the generated certificate serves TLS that a client trusting the caBundle (the CA) accepts for the Service name", async () => {
  const hosts = serviceHosts("edgeloop");
  const tls = await caSignedCertificate(hosts);
  const cert = new X509Certificate(tls.certPem);
  assert.ok(cert.checkHost("edgeloop-relay.edgeloop.svc"));
  assert.equal(cert.checkHost("evil.example"), undefined);
  const server = createServer({ cert: tls.certPem, key: tls.keyPem }, (_req, res) => res.end("ok"));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  try {
    const port = (server.address() as AddressInfo).port;
    const body = await new Promise<string>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, servername: "edgeloop-relay.edgeloop.svc", ca: tls.caPem, path: "/" }, (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve(text));
      });
      req.on("error", reject);
      req.end();
    });
    assert.equal(body, "ok");
  } finally {
    server.close();
  }
});

test("a CA-signed pair: the caBundle is the CA, the Secret carries ca.crt; the CA lives 10 years, the serving certificate 1", async () => {
  const hosts = serviceHosts("edge");
  const tls = await caSignedCertificate(hosts);
  const objects = installObjects({ workerUrl: "https://w.example", namespace: "edge", image: "relay:1", replicas: 1, secret: "0123456789abcdef", tls, manifest, crds: [] });
  const hook = (objects.find((o) => o.kind === "MutatingWebhookConfiguration") as unknown as { webhooks: { clientConfig: { caBundle: string } }[] }).webhooks[0];
  assert.equal(Buffer.from(hook?.clientConfig.caBundle ?? "", "base64").toString(), tls.caPem);
  const secret = objects.find((o) => o.kind === "Secret" && o.metadata.name === "edgeloop-relay-tls") as unknown as { data: Record<string, string> };
  assert.deepEqual(Object.keys(secret.data).sort(), ["ca.crt", "tls.crt", "tls.key"]);
  const ca = new X509Certificate(tls.caPem ?? "");
  const cert = new X509Certificate(tls.certPem);
  assert.ok(ca.ca && !cert.ca, "only the CA may sign");
  assert.ok(cert.checkIssued(ca) && cert.verify(ca.publicKey));
  assert.ok(cert.checkHost("edgeloop-relay.edge.svc"));
  const years = (c: X509Certificate): number => Math.round((Date.parse(c.validTo) - Date.parse(c.validFrom)) / (365 * 86_400_000));
  assert.deepEqual([years(ca), years(cert)], [10, 1]);
});

test("an edge channel: the relay serves it on the pod IP at its port, the Deployment and the channels' Service (the leader's pod) expose it, and the Service its peers dial is an ExternalName to that one", () => {
  const edge = { name: "edge-mgr", endpoint: "edgeMgr", port: 9000, peerHeader: "Node-Name", maxFrameBytes: 1024 * 1024, service: { namespace: "vendor", name: "mgr" } };
  const local = { name: "local", endpoint: "local", port: 9001, peerHeader: "Node-Name", maxFrameBytes: 1024 * 1024, service: { namespace: "edge", name: "local-mgr" } };
  const withChannel: Manifest = { version: "v1", controllers: [{ ...manifest.controllers[1]!, channels: [edge, local] }] };
  const objects = installObjects({ workerUrl: "https://w.example", namespace: "edge", image: "relay:1", replicas: 2, secret: "0123456789abcdef", tls: { certPem: "c", keyPem: "k" }, manifest: withChannel, crds: [], clusterDomain: "example.local" });
  const deployment = objects.find((o) => o.kind === "Deployment") as unknown as { spec: { template: { spec: { containers: { args: string[]; ports: { name: string; containerPort: number }[] }[] } } } };
  const container = deployment.spec.template.spec.containers[0];
  const args = container?.args ?? [];
  assert.equal(args[args.indexOf("--edge-mgr-port") + 1], "9000");
  assert.equal(args[args.indexOf("--edge-mgr-host") + 1], "$(POD_IP)");
  assert.equal(args[args.indexOf("--local-port") + 1], "9001");
  assert.deepEqual(container?.ports.filter((p) => p.containerPort >= 9000 && p.containerPort <= 9001), [{ name: "edge-mgr", containerPort: 9000 }, { name: "local", containerPort: 9001 }]);
  // Admission and the APIs on every replica; the channels on the leader's pod only (a standby answers their upgrade 503).
  const service = (name: string): { metadata: { namespace: string }; spec: { selector: Record<string, string>; ports: { name: string; port: number; targetPort: number }[] } } =>
    objects.find((o) => o.kind === "Service" && o.metadata.name === name) as unknown as ReturnType<typeof service>;
  assert.deepEqual(service("edgeloop-relay").spec.selector, { "app.kubernetes.io/name": "edgeloop-relay" });
  assert.deepEqual(service("edgeloop-relay").spec.ports.map((p) => p.name), ["https", "http-api", "metrics"], "no channel port on the Service of every replica");
  const channels = service("edgeloop-relay-channels");
  assert.equal(channels.metadata.namespace, "edge");
  assert.deepEqual(channels.spec.selector, { "app.kubernetes.io/name": "edgeloop-relay", [LEADER_LABEL]: "true" });
  assert.deepEqual(channels.spec.ports, [{ name: "edge-mgr", port: 9000, targetPort: 9000 }, { name: "local", port: 9001, targetPort: 9001 }]);
  const podLabels = (deployment as unknown as { spec: { template: { metadata: { labels: Record<string, string> } } } }).spec.template.metadata.labels;
  assert.equal(podLabels[LEADER_LABEL], undefined, "no pod is born leader: the replica that leads labels its own");
  // The peers' Services: the vendor's namespace is made (the relay's exists already), each Service points at the channels' Service by its cluster DNS name.
  assert.deepEqual(objects.filter((o) => o.kind === "Namespace").map((o) => o.metadata.name), ["edge", "vendor"]);
  const peerService = objects.find((o) => o.kind === "Service" && o.metadata.name === "mgr") as unknown as { metadata: { namespace: string }; spec: Record<string, unknown> };
  assert.equal(peerService.metadata.namespace, "vendor");
  assert.deepEqual(peerService.spec, { type: "ExternalName", externalName: "edgeloop-relay-channels.edge.svc.example.local", ports: [{ name: "edge-mgr", port: 9000, targetPort: 9000 }] });
  assert.equal((objects.find((o) => o.metadata.name === "local-mgr") as unknown as { metadata: { namespace: string } }).metadata.namespace, "edge");
  const kinds = objects.map((o) => o.kind);
  assert.ok(kinds.indexOf("Namespace", 1) < kinds.lastIndexOf("Service"), "a namespace before the Service in it");
  // No channel, no extra object.
  const none = installObjects({ workerUrl: "https://w.example", namespace: "edge", image: "relay:1", replicas: 2, secret: "0123456789abcdef", tls: { certPem: "c", keyPem: "k" }, manifest: { version: "v1", controllers: [manifest.controllers[1]!] }, crds: [] });
  assert.equal(none.length, objects.length - 4, "the vendor's Namespace, the channels' Service, the two peers' Services");
  // What the relay makes of those args: the channels' ports and hosts, every other flag its own.
  const split = splitChannelFlags(args);
  assert.deepEqual(split.errors, []);
  assert.deepEqual(split.endpoints, { "edge-mgr": { port: 9000, host: "$(POD_IP)" }, local: { port: 9001, host: "$(POD_IP)" } });
  assert.equal(parseCli({ name: "relay", help: "", options: RELAY_OPTIONS, schema: RelayFlags }, split.rest).kind, "flags");
  // A channel on one of the relay's own ports is refused.
  const clashing: Manifest = { version: "v1", controllers: [{ ...manifest.controllers[1]!, channels: [{ ...edge, port: 8080 }] }] };
  assert.throws(() => installObjects({ workerUrl: "https://w.example", namespace: "edge", image: "relay:1", replicas: 2, secret: "0123456789abcdef", tls: { certPem: "c", keyPem: "k" }, manifest: clashing, crds: [] }), /clashes with the relay's own port api/);
});

test("a webhook's exempt users become a matchCondition: kube-apiserver never calls it for them (issue 28, finding 7a)", () => {
  const exempt = WebhookSpec.parse({ name: "nodes", type: "validating", rules: [{ operations: ["UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"] }], failurePolicy: "Fail", exemptUsers: ["system:serviceaccount:kube-system:node-controller", "system:kube-controller-manager"] });
  const plain = WebhookSpec.parse({ ...exempt, name: "plain", exemptUsers: undefined });
  const [validating] = webhookConfigurations([exempt, plain], () => ({ url: "https://127.0.0.1:1/" }), "ca");
  const [first, second] = (validating as unknown as { webhooks: { matchConditions?: unknown }[] }).webhooks;
  assert.deepEqual(first?.matchConditions, [{ name: "not-exempt-user", expression: "!(request.userInfo.username in ['system:serviceaccount:kube-system:node-controller', 'system:kube-controller-manager'])" }]);
  assert.equal(second?.matchConditions, undefined);
});
