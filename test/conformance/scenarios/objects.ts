/** Small object builders shared by the scenario tables (one line per object in a step). */

export const NS = "/api/v1/namespaces/{ns}";
export const APPS = "/apis/apps/v1/namespaces/{ns}";
export const BATCH = "/apis/batch/v1/namespaces/{ns}";

/**
 * The projected ServiceAccount token volume kube-apiserver's ServiceAccount admission adds
 * to every pod (the sim issues no tokens: docs/sim-differences.md). Ignored in scenarios
 * about something else; "pods: ServiceAccount token volume" shows it.
 */
export const TOKEN_VOLUME = ["body.spec.volumes", "body.spec.containers.*.volumeMounts"] as const;
export const tokenVolumeIn = (prefix: string): string[] => TOKEN_VOLUME.map((p) => p.replace("body", prefix));

export function configMap(name: string, data: Record<string, string> = { a: "1" }, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...metadata }, data };
}

/** A pod bound at creation to `node` (no scheduler needed), ending as the sim's kubelet and the kwok stages end `sleep N`. */
export function pod(name: string, options: { node?: string; labels?: Record<string, string>; command?: string[]; restartPolicy?: string } = {}): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, ...(options.labels ? { labels: options.labels } : {}) },
    spec: {
      ...(options.node ? { nodeName: options.node } : {}),
      ...(options.restartPolicy ? { restartPolicy: options.restartPolicy } : {}),
      containers: [{ name: "main", image: "busybox:1.36", ...(options.command ? { command: options.command } : {}) }],
    },
  };
}

export function podTemplate(labels: Record<string, string>, command?: string[]): Record<string, unknown> {
  return { metadata: { labels }, spec: { containers: [{ name: "main", image: "busybox:1.36", ...(command ? { command } : {}) }] } };
}

export function ownerRef(kind: string, name: string, uidVar: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: "v1", kind, name, uid: `{${uidVar}}`, ...extra };
}
