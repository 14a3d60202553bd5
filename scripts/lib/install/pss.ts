/**
 * The Pod Security Standards "restricted" profile (which includes "baseline"), as the
 * Pod Security admission controller of Kubernetes 1.34 checks it
 * (k8s.io/pod-security-admission/policy), one small rule per control, over a pod spec.
 * install-relay's Deployment must pass it, so that the relay runs in a namespace labelled
 * `pod-security.kubernetes.io/enforce: restricted`.
 */

type Obj = Record<string, unknown>;

/** One failed control: which, and what in the pod fails it. */
export interface Violation {
  readonly control: string;
  readonly detail: string;
}

const obj = (value: unknown): Obj => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : {});
const list = (value: unknown): Obj[] => (Array.isArray(value) ? value.map(obj) : []);

/** What a rule sees: the pod's metadata and spec, and every container (init and ephemeral included). */
interface Pod {
  readonly metadata: Obj;
  readonly spec: Obj;
  readonly security: Obj;
  readonly containers: readonly { readonly name: string; readonly container: Obj; readonly security: Obj }[];
}

type Rule = (pod: Pod) => string | undefined;

const names = (items: readonly { name: string }[]): string => items.map((c) => `"${c.name}"`).join(", ");

/** Failing containers' names as a detail, or undefined when none fails. */
function containersWhere(pod: Pod, fails: (c: Pod["containers"][number]) => boolean, what: string): string | undefined {
  const bad = pod.containers.filter(fails);
  return bad.length ? `container(s) ${names(bad)} ${what}` : undefined;
}

const SAFE_SYSCTLS = new Set([
  "kernel.shm_rmid_forced",
  "net.ipv4.ip_local_port_range",
  "net.ipv4.tcp_syncookies",
  "net.ipv4.ping_group_range",
  "net.ipv4.ip_unprivileged_port_start",
  "net.ipv4.ip_local_reserved_ports",
  "net.ipv4.tcp_keepalive_time",
  "net.ipv4.tcp_fin_timeout",
  "net.ipv4.tcp_keepalive_intvl",
  "net.ipv4.tcp_keepalive_probes",
  "net.ipv4.tcp_rmem",
  "net.ipv4.tcp_wmem",
]);
const SELINUX_TYPES = new Set(["", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"]);
const RESTRICTED_VOLUMES = new Set(["configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret"]);
/** RuntimeDefault or Localhost: the profiles (seccomp, AppArmor) that confine a container. */
const confined = (type: unknown): boolean => type === "RuntimeDefault" || type === "Localhost";

/** Baseline controls. */
const BASELINE: Record<string, Rule> = {
  hostProcess: (pod) =>
    obj(pod.security.windowsOptions).hostProcess === true || pod.containers.some((c) => obj(c.security.windowsOptions).hostProcess === true) ? "windowsOptions.hostProcess must not be true" : undefined,
  hostNamespaces: (pod) => {
    const shared = ["hostNetwork", "hostPID", "hostIPC"].filter((field) => pod.spec[field] === true);
    return shared.length ? `${shared.join(", ")} must not be true` : undefined;
  },
  privileged: (pod) => containersWhere(pod, (c) => c.security.privileged === true, "must not set securityContext.privileged=true"),
  hostPathVolumes: (pod) => {
    const bad = list(pod.spec.volumes).filter((v) => v.hostPath !== undefined);
    return bad.length ? `hostPath volume(s) ${bad.map((v) => `"${String(v.name)}"`).join(", ")}` : undefined;
  },
  hostPorts: (pod) => containersWhere(pod, (c) => list(c.container.ports).some((p) => p.hostPort !== undefined && p.hostPort !== 0), "must not set hostPort"),
  appArmor: (pod) => {
    const bad = (profile: unknown): boolean => obj(profile).type !== undefined && !confined(obj(profile).type);
    const annotations = Object.entries(obj(pod.metadata.annotations)).filter(([key]) => key.startsWith("container.apparmor.security.beta.kubernetes.io/"));
    const badAnnotation = annotations.some(([, value]) => value !== "runtime/default" && !String(value).startsWith("localhost/"));
    return bad(pod.security.appArmorProfile) || pod.containers.some((c) => bad(c.security.appArmorProfile)) || badAnnotation ? "AppArmor must be RuntimeDefault or Localhost" : undefined;
  },
  seLinux: (pod) => {
    const bad = (options: unknown): boolean => {
      const o = obj(options);
      return !SELINUX_TYPES.has(String(o.type ?? "")) || Boolean(o.user) || Boolean(o.role);
    };
    return bad(pod.security.seLinuxOptions) || pod.containers.some((c) => bad(c.security.seLinuxOptions)) ? "seLinuxOptions: a custom type, user or role is not allowed" : undefined;
  },
  procMount: (pod) => containersWhere(pod, (c) => c.security.procMount !== undefined && c.security.procMount !== "Default", "must not set a procMount other than Default"),
  seccompBaseline: (pod) =>
    obj(pod.security.seccompProfile).type === "Unconfined" || pod.containers.some((c) => obj(c.security.seccompProfile).type === "Unconfined") ? "seccompProfile must not be Unconfined" : undefined,
  sysctls: (pod) => {
    const bad = list(pod.security.sysctls).filter((s) => !SAFE_SYSCTLS.has(String(s.name)));
    return bad.length ? `unsafe sysctl(s) ${bad.map((s) => String(s.name)).join(", ")}` : undefined;
  },
  hostProbesAndLifecycle: (pod) => {
    const hosts = (handler: unknown): boolean => Boolean(obj(obj(handler).httpGet).host) || Boolean(obj(obj(handler).tcpSocket).host);
    const lifecycle = (c: Obj): Obj => obj(c.lifecycle);
    return containersWhere(
      pod,
      (c) => ["livenessProbe", "readinessProbe", "startupProbe"].some((p) => hosts(c.container[p])) || hosts(lifecycle(c.container).postStart) || hosts(lifecycle(c.container).preStop),
      "must not set a host in probes or lifecycle handlers",
    );
  },
};

/** Restricted controls, on top of baseline. */
const RESTRICTED: Record<string, Rule> = {
  volumeTypes: (pod) => {
    const bad = list(pod.spec.volumes).filter((v) => !Object.keys(v).some((key) => RESTRICTED_VOLUMES.has(key)));
    return bad.length ? `volume(s) ${bad.map((v) => `"${String(v.name)}"`).join(", ")} of a restricted type` : undefined;
  },
  allowPrivilegeEscalation: (pod) => containersWhere(pod, (c) => c.security.allowPrivilegeEscalation !== false, "must set securityContext.allowPrivilegeEscalation=false"),
  runAsNonRoot: (pod) => {
    if (pod.security.runAsNonRoot === false || pod.containers.some((c) => c.security.runAsNonRoot === false)) return "runAsNonRoot must not be false";
    return pod.security.runAsNonRoot === true ? undefined : containersWhere(pod, (c) => c.security.runAsNonRoot !== true, "must set securityContext.runAsNonRoot=true (or the pod must)");
  },
  runAsUser: (pod) => (pod.security.runAsUser === 0 || pod.containers.some((c) => c.security.runAsUser === 0) ? "runAsUser must not be 0" : undefined),
  seccompProfile: (pod) => {
    const podType = obj(pod.security.seccompProfile).type;
    if (podType !== undefined && !confined(podType)) return `the pod's seccompProfile.type must be RuntimeDefault or Localhost, not ${String(podType)}`;
    return containersWhere(
      pod,
      (c) => {
        const type = obj(c.security.seccompProfile).type;
        return type === undefined ? podType === undefined : !confined(type);
      },
      'must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost" (or the pod must)',
    );
  },
  capabilities: (pod) =>
    containersWhere(
      pod,
      (c) => {
        const caps = obj(c.security.capabilities);
        const drop = Array.isArray(caps.drop) ? caps.drop : [];
        const add = Array.isArray(caps.add) ? caps.add : [];
        return !drop.includes("ALL") || add.some((cap) => cap !== "NET_BIND_SERVICE");
      },
      'must drop ["ALL"] capabilities and add none but NET_BIND_SERVICE',
    ),
};

/** Every control of the profile by name. */
export const RESTRICTED_PROFILE: Readonly<Record<string, Rule>> = { ...BASELINE, ...RESTRICTED };

/** What fails the restricted profile in a pod (metadata and spec); empty when it passes. */
export function restrictedViolations(podMetadata: unknown, podSpec: unknown): Violation[] {
  const spec = obj(podSpec);
  const containers = ["containers", "initContainers", "ephemeralContainers"].flatMap((field) => list(spec[field]).map((container) => ({ name: String(container.name ?? ""), container, security: obj(container.securityContext) })));
  const pod: Pod = { metadata: obj(podMetadata), spec, security: obj(spec.securityContext), containers };
  return Object.entries(RESTRICTED_PROFILE).flatMap(([control, rule]) => {
    const detail = rule(pod);
    return detail === undefined ? [] : [{ control, detail }];
  });
}

/** The same for a workload (Deployment, StatefulSet, DaemonSet, Job): its pod template. */
export function workloadViolations(workload: unknown): Violation[] {
  const template = obj(obj(obj(workload).spec).template);
  return restrictedViolations(template.metadata, template.spec);
}
