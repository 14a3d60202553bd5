/**
 * `npm start -- --kubeconfig` on a real control plane: edgeloop as installed (ADR 0019).
 * The CRDs and what `install-relay` renders for the relay's identity and rights are in the
 * cluster (and nothing of its Deployment); every request the relay makes is its
 * ServiceAccount's (the API server's audit log says who sent each); a Sedna
 * FederatedLearningJob gets its pods, created by that ServiceAccount and Running; the
 * real API server calls the mutating and validating webhooks at the local front; a
 * refusal by the API server is said with its message, once; two relays elect one leader
 * through a real Lease, and the leader-election Role covers exactly what that uses; the
 * leader labels its own pod, so the edge channels' Service has the leader's pod alone.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { parse, parseAllDocuments } from "yaml";
import { present, waitFor } from "../../cli/wait.ts";
import { defaultCacheDir } from "../../cluster/build.ts";
import { startControlPlane, type RunningControlPlane } from "../../cluster/index.ts";
import { createRegistry } from "../../functions/registry.ts";
import { StatusError, type KubeObject, type Plan } from "../../protocol/index.ts";
import { refOf } from "../../protocol/index.ts";
import type { Logger } from "../../cli/log.ts";
import { PlanApplier } from "../../relay/apply/applier.ts";
import type { ApplyListener } from "../../relay/apply/listener.ts";
import { Narrator } from "../../relay/apply/narrate.ts";
import { Metrics } from "../../relay/ops/metrics.ts";
import { startRelay, type RunningRelay } from "../../relay/index.ts";
import { KubeClient } from "../../relay/kube/client.ts";
import { loadControllers } from "../../scripts/lib/controllers.ts";
import { CHANNELS_SERVICE, installObjects, LEADER_RULES, NAME, relayAccessObjects } from "../../scripts/lib/install/objects.ts";
import { LEADER_LABEL } from "../../relay/ops/leader-label.ts";
import { relayRules } from "../../scripts/lib/install/rbac.ts";
import { startOnCluster, type ClusterStack } from "../../scripts/lib/stack.ts";
import { ApiError } from "../../sim/contract.ts";
import { describePods } from "../support/cluster-waits.ts";
import { HttpCluster } from "../support/http-cluster.ts";
import { controlPlaneStateDir } from "../e2e/harness.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

const NAMESPACE = "edgeloop";
const RELAY_USER = `system:serviceaccount:${NAMESPACE}:${NAME}`;
const SEDNA_FIXTURES = join(import.meta.dirname, "../../functions/controllers/sedna/fixtures");
const NERVEX_FIXTURES = join(import.meta.dirname, "../../functions/controllers/nervex/fixtures");
const POD = { apiVersion: "v1", kind: "Pod" };
const FL = { apiVersion: "sedna.io/v1alpha1", kind: "FederatedLearningJob" };
const NERVEXJOB = { apiVersion: "nervex.sensetime.com/v1alpha1", kind: "NerveXJob" };
const LEASE = { apiVersion: "coordination.k8s.io/v1", kind: "Lease" };
const SLICE = { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice" };
const LEASE_SETTINGS = { leaseDurationSeconds: 3, retrySeconds: 0.5 };

let dir: string;
let controlPlane: RunningControlPlane;
let stack: ClusterStack;
let cluster: HttpCluster;
const others: RunningRelay[] = [];

/** One record of the API server's audit log (the fields read here). */
interface AuditEvent {
  readonly user: { readonly username: string };
  readonly verb: string;
  readonly objectRef?: { readonly apiGroup?: string; readonly resource?: string; readonly subresource?: string; readonly namespace?: string; readonly name?: string };
  readonly responseStatus?: { readonly code?: number; readonly message?: string };
  readonly annotations?: Readonly<Record<string, string>>;
}

function audit(): AuditEvent[] {
  return readFileSync(controlPlane.auditLogPath, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as AuditEvent);
}

const byRelay = (event: AuditEvent): boolean => event.user.username === RELAY_USER;

function fixture(dir: string, file: string): Obj {
  const [document] = parseAllDocuments(readFileSync(join(dir, file), "utf8"));
  return document?.toJS() as Obj;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "edgeloop-installed-"));
  controlPlane = await startControlPlane({ stateDir: controlPlaneStateDir(join(dir, "control-plane")), port: 0, nodes: ["cloud", "edge1", "edge2", "edge-node"], cacheDir: defaultCacheDir(process.env), env: process.env, fresh: true });
  stack = await startOnCluster({ kubeconfigPath: controlPlane.kubeconfigPath, persistDir: join(dir, "durable-objects"), leaderElection: { identity: "relay-a", ...LEASE_SETTINGS } });
  const kc = new KubeConfig();
  kc.loadFromFile(controlPlane.kubeconfigPath);
  cluster = new HttpCluster(kc);
});

after(async () => {
  for (const relay of others) if (relay !== stack?.relay) await relay.stop().catch(() => undefined);
  await stack?.stop();
  await controlPlane?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("installed as install-relay renders it, without its Deployment; the relay's kubeconfig is its ServiceAccount's token alone", async () => {
  const manifest = createRegistry(await loadControllers()).manifest;
  for (const object of relayAccessObjects(NAMESPACE, manifest)) {
    const found = await cluster.get(object, object.metadata.namespace, object.metadata.name ?? "");
    assert.equal(found.metadata.labels?.["app.kubernetes.io/part-of"], "edgeloop", `${object.kind} ${object.metadata.name ?? ""}`);
  }
  assert.deepEqual((await cluster.get({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole" }, undefined, NAME))["rules"], relayRules(manifest));
  assert.deepEqual((await cluster.get({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role" }, NAMESPACE, `${NAME}-leader`))["rules"], LEADER_RULES);
  const nodes = relayRules(manifest).filter((rule) => rule.apiGroups.includes("") && rule.resources.includes("nodes")).flatMap((rule) => [...rule.verbs]).sort();
  assert.deepEqual(nodes, ["list", "patch", "watch"], "Nodes are patched (edge autonomy's marks), never created nor deleted");
  for (const kind of ["Deployment", "Service", "Secret"]) {
    const type = { apiVersion: kind === "Deployment" ? "apps/v1" : "v1", kind };
    assert.deepEqual((await cluster.list(type, { namespace: NAMESPACE, labelSelector: "app.kubernetes.io/part-of=edgeloop" })).items, [], `no relay ${kind}: the relay runs on this machine`);
  }

  const installed = stack.installed;
  assert.ok(installed, "a real cluster is run as installed");
  assert.equal(installed.user, RELAY_USER);
  const kubeconfig = parse(readFileSync(installed.relayKubeconfigPath, "utf8")) as Obj;
  const user = kubeconfig.users[0].user as Obj;
  assert.deepEqual(Object.keys(user), ["auth-provider"], "no client certificate, no admin token");
  const token = readFileSync(user["auth-provider"].config.tokenFile, "utf8");
  const claims = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as Obj;
  assert.equal(claims.sub, RELAY_USER, "a TokenRequest token of the ServiceAccount");
  assert.ok(claims.exp - claims.iat >= 600, "bound tokens live at least 10 minutes");
  assert.equal(kubeconfig.clusters[0].cluster.server, controlPlane.url);
});

test("a Sedna FederatedLearningJob: its pods are created by the relay's ServiceAccount, and run", async () => {
  const model = { apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "surface-defect-detection-model", namespace: "default" }, spec: { url: "/models/m", format: "pb" } };
  const dataset = (name: string, nodeName: string): Obj => ({ apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name, namespace: "default" }, spec: { url: "/data/train.txt", format: "txt", nodeName } });
  for (const object of [model, dataset("edge1-surface-defect-detection-dataset", "edge1"), dataset("edge2-surface-defect-detection-dataset", "edge2")]) await cluster.create(object as KubeObject);
  const job = await cluster.create({ ...fixture(SEDNA_FIXTURES, "federatedlearningjob_v1alpha1.yaml"), metadata: { name: "surface-defect-detection", namespace: "default" } } as KubeObject);

  const pods = await waitFor(
    "the job's three pods Running",
    async () => (await cluster.list(POD, { namespace: "default" })).items.filter((pod) => pod.metadata.ownerReferences?.some((ref) => ref.uid === job.metadata.uid)),
    (owned) => owned.length === 3 && owned.every((pod) => (pod as Obj).status?.phase === "Running"),
    { timeoutMs: 30_000, describe: describePods },
  );
  assert.deepEqual(pods.map((pod) => (pod as Obj).spec.nodeName).sort(), ["cloud", "edge1", "edge2"]);
  await waitFor("the job's status Running (its phase)", async () => ((await cluster.get(FL, "default", "surface-defect-detection")) as Obj).status?.phase, (phase) => phase === "Running", { timeoutMs: 15_000 });

  const podCreatesIn = (all: readonly AuditEvent[]): AuditEvent[] => all.filter((e) => e.verb === "create" && e.objectRef?.resource === "pods" && e.objectRef.subresource === undefined && e.objectRef.namespace === "default" && e.responseStatus?.code === 201);
  const events = await waitFor("the pod creates in the audit log", audit, (all) => podCreatesIn(all).length >= 3, { describe: (all) => `${podCreatesIn(all).length} pod creates` });
  const podCreates = events.filter((e) => e.verb === "create" && e.objectRef?.resource === "pods" && e.objectRef.subresource === undefined && e.responseStatus?.code === 201);
  assert.deepEqual([...new Set(podCreates.map((e) => e.user.username))], [RELAY_USER], "every pod was created by the ServiceAccount");
  const statusWrites = events.filter((e) => e.objectRef?.resource === "federatedlearningjobs" && e.objectRef.subresource === "status");
  assert.ok(statusWrites.length > 0);
  assert.deepEqual([...new Set(statusWrites.map((e) => `${e.user.username} ${e.verb}`))], [`${RELAY_USER} patch`], "status through a merge PATCH of /status, by the ServiceAccount");
  // Nothing but the relay watches here (the test reads with GET and LIST, the control plane's components are not audited; the
  // kwok launcher watches Nodes with the admin kubeconfig for the heartbeat annotation): no watch of what the relay watches is the admin's.
  const watchers = new Set(events.filter((e) => e.verb === "watch" && e.objectRef?.resource !== "nodes").map((e) => e.user.username));
  assert.deepEqual([...watchers], [RELAY_USER], "the relay never used the admin kubeconfig");
  assert.ok(events.some((e) => byRelay(e) && e.verb === "watch" && e.objectRef?.resource === "nodes"), "the relay watches Nodes as itself too");
  assert.deepEqual(events.filter((e) => byRelay(e) && e.responseStatus?.code === 403).map((e) => e.responseStatus?.message), [], "nothing the relay did was refused by RBAC");
});

test("the real API server calls the mutating and the validating webhook at the local front", async () => {
  const front = stack.front;
  assert.ok(front, "the API server is on loopback: the front is served and registered");
  for (const kind of ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]) {
    const configuration = (await cluster.get({ apiVersion: "admissionregistration.k8s.io/v1", kind }, undefined, kind.startsWith("Mutating") ? "edgeloop-mutating" : "edgeloop-validating")) as Obj;
    for (const hook of configuration.webhooks as Obj[]) {
      assert.ok(String(hook.clientConfig.url).startsWith(`${front.url}/admission/`), `${hook.name} calls the front by url`);
      assert.equal(Buffer.from(hook.clientConfig.caBundle, "base64").toString("utf8"), front.caPem);
      assert.ok((hook.namespaceSelector.matchExpressions as Obj[]).some((e) => e.key === "kubernetes.io/metadata.name" && e.operator === "NotIn" && e.values.includes(NAMESPACE)), "never the relay's own namespace");
    }
  }
  await cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "hooks" } } as KubeObject);
  const job = fixture(NERVEX_FIXTURES, "nervex-mock-nervexjob.yaml");
  delete job.spec.cleanPodPolicy;
  await cluster.create({ ...job, metadata: { name: "defaulted", namespace: "hooks" } } as KubeObject);
  assert.equal(((await cluster.get(NERVEXJOB, "hooks", "defaulted")) as Obj).spec.cleanPodPolicy, "Running", "defaulted by the mutating webhook");
  const refused = await cluster.create({ ...job, metadata: { name: "refused", namespace: "hooks" }, spec: { ...job.spec, cleanPodPolicy: "Sometimes" } } as unknown as KubeObject).then(
    () => assert.fail("the validating webhook let a bad cleanPodPolicy in"),
    (error: unknown) => error,
  );
  assert.ok(refused instanceof ApiError);
  assert.match(refused.message, /admission webhook "nervexjob-validate\.edgeloop\.dev" denied the request: spec\.cleanPodPolicy: Unsupported value: "Sometimes"/);

  const creates = await waitFor("both creates in the audit log", () => audit().filter((e) => e.verb === "create" && e.objectRef?.resource === "nervexjobs" && e.objectRef.namespace === "hooks"), (found) => found.length === 2, {
    describe: (found) => `${found.length} creates`,
  });
  const defaulted = creates.find((e) => e.objectRef?.name === "defaulted" || e.responseStatus?.code === 201);
  const mutations = Object.entries(defaulted?.annotations ?? {}).filter(([key]) => key.startsWith("mutation.webhook.admission.k8s.io/")).map(([, value]) => JSON.parse(value) as unknown);
  assert.deepEqual(mutations, [{ configuration: "edgeloop-mutating", webhook: "nervexjob-defaults.edgeloop.dev", mutated: true }]);
  assert.equal(creates.find((e) => e !== defaulted)?.responseStatus?.code, 400);
});

test("a refusal by the API server is said once, with its message, as a log line and a Warning Event, after a bounded ~1.75 s of asking again: never retried in silence", async () => {
  const kc = new KubeConfig();
  kc.loadFromFile(stack.installed?.relayKubeconfigPath ?? "");
  const lines: string[] = [];
  const log: Logger = (level, msg) => lines.push(`${level} ${msg}`);
  const errors: StatusError[] = [];
  const failures: ApplyListener = { failed: (_action, error) => void errors.push(error) };
  const applier = new PlanApplier(new KubeClient(kc), { log, listeners: [new Narrator(log, new Metrics()), failures] });
  const parent = await cluster.get(FL, "default", "surface-defect-detection");
  const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "not-granted", namespace: "default" }, stringData: { a: "b" } } as unknown as KubeObject;
  const result = await applier.apply({ actions: [{ type: "create", object: secret }] } as Plan, { parent: refOf(parent) });
  assert.deepEqual(result, { ok: true, failed: 1 }, "permanent: the plan goes on, nothing is retried");
  assert.deepEqual(lines.filter((line) => !line.startsWith("debug ")), ["warn action failed for good"], "nothing is said to have been applied; the failure is said once");
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof StatusError);
  assert.equal(errors[0].status, 403);
  const message = `secrets is forbidden: User "${RELAY_USER}" cannot create resource "secrets" in API group "" in the namespace "default"`;
  assert.equal(errors[0].message, message, "the API server's own message");
  const warning = await waitFor("the FailedCreate Event", async () => (await cluster.list({ apiVersion: "v1", kind: "Event" }, { namespace: "default" })).items.find((e) => (e as Obj).reason === "FailedCreate" && (e as Obj).involvedObject.uid === parent.metadata.uid), present);
  assert.equal((warning as Obj).message, `create Secret not-granted: ${message}`);
  assert.equal((warning as Obj).type, "Warning");
  const refusals = audit().filter((e) => byRelay(e) && e.objectRef?.resource === "secrets");
  // Asked again after 250, 500 and 1,000 ms (a kube-apiserver that just started refuses for a moment), then final.
  assert.deepEqual(refusals.map((e) => `${e.verb} ${e.responseStatus?.code ?? ""}`), ["create 403", "create 403", "create 403", "create 403"], "sent 1 + 3 times, then never again");
});

test("a relay whose Lease is taken from it starts again and campaigns: it leads once the other holder's Lease lapses", async () => {
  await waitFor("relay-a to lead", () => stack.relay.engine.leading, Boolean);
  const before = stack.relay;
  // Another holder writes the Lease (as a relay on another machine would after a partition); relay-a's next renewal finds it held.
  const now = new Date().toISOString().replace("Z", "000Z");
  await cluster.patch(LEASE, NAMESPACE, NAME, { spec: { holderIdentity: "elsewhere", renewTime: now, acquireTime: now, leaseDurationSeconds: LEASE_SETTINGS.leaseDurationSeconds } }, "merge");
  await waitFor("a new relay to lead again", () => stack.relay !== before && stack.relay.engine.leading, Boolean, { timeoutMs: (LEASE_SETTINGS.leaseDurationSeconds + 10) * 1000 });
  assert.equal(((await cluster.get(LEASE, NAMESPACE, NAME)) as Obj).spec.holderIdentity, "relay-a");
  assert.equal(before.elector?.leading, false, "the relay that lost the Lease was stopped, not left reconciling beside the new one");
});

/** The leader label on the pod of a relay (the test's stand-in for its Deployment's pod). */
async function leaderLabelOf(pod: string): Promise<string | undefined> {
  return (await cluster.get(POD, NAMESPACE, pod)).metadata.labels?.[LEADER_LABEL];
}

/** The pods the channels' Service sends peers to: its EndpointSlices' ready endpoints. */
async function channelEndpoints(): Promise<string[]> {
  const slices = (await cluster.list(SLICE, { namespace: NAMESPACE, labelSelector: `kubernetes.io/service-name=${CHANNELS_SERVICE}` })).items as Obj[];
  return slices.flatMap((slice) => ((slice.endpoints ?? []) as Obj[]).filter((e) => e.conditions?.ready !== false).map((e) => String(e.targetRef?.name))).sort();
}

test("two relays elect one leader through a real Lease; the leader-election Role covers exactly what that uses; the leader's pod alone is the channels' endpoint", async (t) => {
  const lease = async (): Promise<Obj> => (await cluster.get(LEASE, NAMESPACE, NAME)) as Obj;
  await waitFor("relay-a to lead", () => stack.relay.engine.leading, Boolean);
  assert.equal((await lease()).spec.holderIdentity, "relay-a");
  const transitions = Number((await lease()).spec.leaseTransitions ?? 0);
  // The replicas' pods, as the Deployment's would be (kwok runs them and reports them Ready); relay-c's carries a stale leader
  // label, as a restarted container's pod does. And the channels' Service install-relay renders, selecting the leader label.
  const podLabels = { "app.kubernetes.io/name": NAME, "app.kubernetes.io/part-of": "edgeloop" };
  for (const [name, labels] of [["relay-b", podLabels], ["relay-c", { ...podLabels, [LEADER_LABEL]: "true" }]] as const) {
    await cluster.create({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: NAMESPACE, labels }, spec: { nodeName: "cloud", containers: [{ name: "relay", image: "relay" }] } } as unknown as KubeObject);
  }
  const manifest = createRegistry(await loadControllers()).manifest;
  const rendered = installObjects({ workerUrl: stack.worker.url, namespace: NAMESPACE, image: "relay", replicas: 2, secret: stack.secret, tls: { certPem: "", keyPem: "" }, manifest, crds: [] });
  await cluster.create(rendered.find((o) => o.kind === "Service" && o.metadata.name === CHANNELS_SERVICE) ?? assert.fail("install-relay renders the channels' Service (a shipped controller declares a channel)"));
  const replica = async (identity: string): Promise<RunningRelay> => {
    const relay = await startRelay({ workerUrl: stack.worker.url, secret: stack.secret, kubeconfigPath: stack.installed?.relayKubeconfigPath ?? "", opsPort: 0, logLevel: "error", leaderElection: { namespace: NAMESPACE, name: NAME, identity, ...LEASE_SETTINGS }, leaderPod: { namespace: NAMESPACE, name: identity } });
    others.push(relay);
    return relay;
  };
  const b = await replica("relay-b");
  // Two renewals by relay-a after relay-b started: relay-b has tried meanwhile, and waits.
  const renewed = (await lease()).spec.renewTime as string;
  await waitFor("relay-a to renew twice (the Lease's renewTime)", async () => String((await lease()).spec.renewTime), (renewTime) => renewTime > renewed && Date.parse(renewTime) - Date.parse(renewed) >= 2 * LEASE_SETTINGS.retrySeconds * 1000);
  assert.equal(b.engine.leading, false, "one leader");
  assert.equal((await lease()).spec.holderIdentity, "relay-a");

  // relay-a stops: it releases the Lease, relay-b takes it at once.
  await stack.relay.stop();
  await waitFor("relay-b to lead", () => b.engine.leading, Boolean, { timeoutMs: 5_000 });
  assert.equal((await lease()).spec.holderIdentity, "relay-b");
  await waitFor("relay-b's pod labelled leader", () => leaderLabelOf("relay-b"), (label) => label === "true", { timeoutMs: 5_000 });

  // relay-b crashes (no release): relay-c takes over once the Lease lapses.
  const c = await replica("relay-c");
  await waitFor("relay-c, a standby, to clear its pod's stale leader label", () => leaderLabelOf("relay-c"), (label) => label === undefined, { timeoutMs: 5_000 });
  assert.equal(c.engine.leading, false);
  await waitFor("the channels' Service to send peers to relay-b's pod alone", channelEndpoints, (pods) => pods.join() === "relay-b", { timeoutMs: 15_000, describe: (pods) => pods.join() || "none" });
  await b.engine.stop();
  await b.elector?.stop({ release: false });
  await waitFor("relay-c to take over the lapsed Lease", () => c.engine.leading, Boolean, { timeoutMs: (LEASE_SETTINGS.leaseDurationSeconds + 5) * 1000 });
  const final = await lease();
  assert.equal(final.spec.holderIdentity, "relay-c");
  assert.equal(final.spec.leaseTransitions, transitions + 2);
  stack.relay = c; // stopped with the stack
  await waitFor("relay-c's pod labelled leader", () => leaderLabelOf("relay-c"), (label) => label === "true", { timeoutMs: 5_000 });
  // A crashed relay writes nothing: its pod keeps the label until its container restarts (not Ready meanwhile) and clears it, as
  // relay-c did. relay-b stopping for good clears it.
  assert.equal(await leaderLabelOf("relay-b"), "true");
  await b.stop();
  assert.equal(await leaderLabelOf("relay-b"), undefined, "cleared when the relay stops");
  const cleared = Date.now();
  await waitFor("the channels' Service to send peers to relay-c's pod alone", channelEndpoints, (pods) => pods.join() === "relay-c", { timeoutMs: 15_000, intervalMs: 50, describe: (pods) => pods.join() || "none" });
  t.diagnostic(`label cleared → the channels' EndpointSlice without that pod: ${Date.now() - cleared} ms`);

  const used = new Set(audit().filter((e) => byRelay(e) && e.objectRef?.resource === "leases").map((e) => `${e.verb} ${e.objectRef?.name ?? "(new)"} ${e.responseStatus?.code === 403 ? "refused" : "allowed"}`));
  const granted = new Set(LEADER_RULES.flatMap((rule) => rule.verbs.map((verb) => `${verb} ${"resourceNames" in rule ? rule.resourceNames[0] : NAME} allowed`)));
  assert.deepEqual([...used].sort(), [...granted].sort(), "every verb the Role grants was used, and nothing else, and nothing refused");
  assert.ok(audit().filter((e) => e.objectRef?.resource === "leases" && e.objectRef.namespace === NAMESPACE && e.verb !== "get" && e.user.username !== "edgeloop-admin").every(byRelay), "only the relays write the Lease (the test reads it, and took it once from relay-a as the admin)");
  // The leader-label Role: only patches, of the relays' own pods, all allowed.
  const podWrites = new Set(audit().filter((e) => byRelay(e) && e.objectRef?.resource === "pods" && e.objectRef.namespace === NAMESPACE).map((e) => `${e.verb} ${e.objectRef?.name ?? ""} ${e.responseStatus?.code === 403 ? "refused" : "allowed"}`));
  assert.deepEqual([...podWrites].sort(), ["patch relay-b allowed", "patch relay-c allowed"], "every verb the leader-label Role grants was used, on the relays' own pods, and nothing else");
});
