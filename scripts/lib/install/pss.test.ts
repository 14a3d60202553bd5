import assert from "node:assert/strict";
import { test } from "node:test";
import type { Manifest } from "../../../protocol/index.ts";
import { installObjects, serviceHosts } from "./objects.ts";
import { restrictedViolations, workloadViolations } from "./pss.ts";
import { selfSignedCertificate } from "./tls.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests edit nested fields of rendered objects

const manifest: Manifest = { version: "v1", controllers: [] };

async function relayDeployment(): Promise<Obj> {
  const tls = await selfSignedCertificate(serviceHosts("edgeloop"));
  const objects = installObjects({ workerUrl: "https://w.example", namespace: "edgeloop", image: "relay:1", replicas: 2, secret: "0123456789abcdef", tls, manifest, crds: [] });
  return structuredClone(objects.find((o) => o.kind === "Deployment")) as Obj;
}

test("the relay Deployment install-relay renders passes the restricted Pod Security Standard", async () => {
  assert.deepEqual(workloadViolations(await relayDeployment()), []);
});

test("the check fails a Deployment without a seccompProfile, and names the control", async () => {
  const deployment = await relayDeployment();
  delete deployment.spec.template.spec.securityContext.seccompProfile;
  delete deployment.spec.template.spec.containers[0].securityContext.seccompProfile;
  assert.deepEqual(workloadViolations(deployment).map((v) => v.control), ["seccompProfile"]);
  assert.match(workloadViolations(deployment)[0]?.detail ?? "", /container\(s\) "relay" must set securityContext.seccompProfile.type/);
});

test("each restricted control fails on the pod that breaks it", () => {
  const good = (): Obj => ({
    securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
    containers: [{ name: "c", image: "i", securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } } }],
    volumes: [{ name: "v", secret: { secretName: "s" } }],
  });
  const fails = (edit: (pod: Obj) => void): string[] => {
    const pod = good();
    edit(pod);
    return restrictedViolations({}, pod).map((v) => v.control);
  };
  assert.deepEqual(fails(() => undefined), []);
  assert.deepEqual(fails((p) => (p.hostNetwork = true)), ["hostNamespaces"]);
  assert.deepEqual(fails((p) => (p.containers[0].securityContext.privileged = true)), ["privileged"]);
  assert.deepEqual(fails((p) => p.volumes.push({ name: "h", hostPath: { path: "/" } })), ["hostPathVolumes", "volumeTypes"]);
  assert.deepEqual(fails((p) => (p.containers[0].ports = [{ containerPort: 80, hostPort: 80 }])), ["hostPorts"]);
  assert.deepEqual(fails((p) => (p.securityContext.sysctls = [{ name: "kernel.msgmax", value: "1" }])), ["sysctls"]);
  assert.deepEqual(fails((p) => (p.containers[0].readinessProbe = { httpGet: { host: "10.0.0.1", path: "/", port: 80 } })), ["hostProbesAndLifecycle"]);
  assert.deepEqual(fails((p) => delete p.containers[0].securityContext.allowPrivilegeEscalation), ["allowPrivilegeEscalation"]);
  assert.deepEqual(fails((p) => delete p.securityContext.runAsNonRoot), ["runAsNonRoot"]);
  assert.deepEqual(fails((p) => (p.containers[0].securityContext.runAsUser = 0)), ["runAsUser"]);
  assert.deepEqual(fails((p) => (p.securityContext.seccompProfile = { type: "Unconfined" })), ["seccompBaseline", "seccompProfile"]);
  assert.deepEqual(fails((p) => (p.containers[0].securityContext.capabilities = { drop: ["ALL"], add: ["SYS_ADMIN"] })), ["capabilities"]);
  assert.deepEqual(fails((p) => p.containers.push({ name: "init", image: "i" })), ["allowPrivilegeEscalation", "capabilities"], "every container counts");
  assert.deepEqual(fails((p) => (p.containers[0].securityContext.seLinuxOptions = { type: "spc_t" })), ["seLinux"]);
});
