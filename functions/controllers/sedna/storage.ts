import type { EnvVar } from "../../kit/container-env.ts";
import type { PodSpec } from "../../kit/pod.ts";

/** Where downloaded (s3/http) files land inside the pod. */
export const DOWNLOAD_DIR = "/downloads";
/** Where host paths are mounted inside the pod. */
export const HOST_DATA_DIR = "/home/data";
/** The init container that downloads s3/http(s) URLs (upstream's storage initializer). */
export const STORAGE_INITIALIZER_IMAGE = "kubeedge/sedna-storage-initializer:v0.4.0";

const DOWNLOAD_VOLUME = "sedna-downloads";

/** One URL a worker needs: where it comes from, and the Secret with its credentials. */
export interface StorageSource {
  readonly url: string;
  readonly credentialName?: string | undefined;
}

/** How a URL reaches the worker: the path the worker reads, and how it gets there. */
export type StoragePlan =
  | { readonly kind: "download"; readonly source: string; readonly path: string; readonly credentialName?: string | undefined }
  | { readonly kind: "host"; readonly hostDir: string; readonly path: string }
  | { readonly kind: "as-is"; readonly path: string };

/**
 * Decides how a Model/Dataset URL is wired: s3 and http(s) URLs are downloaded into
 * `/downloads/<host><path>`; absolute paths are the host's, mounted under `/home/data`.
 */
export function planStorage(source: StorageSource): StoragePlan {
  const url = source.url;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === "s3" || scheme === "http" || scheme === "https") {
    const rest = url.slice(scheme.length + 3);
    return { kind: "download", source: url, path: `${DOWNLOAD_DIR}/${rest.replace(/^\/+/, "")}`, credentialName: source.credentialName };
  }
  if (url.startsWith("/")) {
    const hostDir = url.endsWith("/") ? url.replace(/\/+$/, "") || "/" : url.slice(0, url.lastIndexOf("/")) || "/";
    return { kind: "host", hostDir, path: `${HOST_DATA_DIR}${url}` };
  }
  return { kind: "as-is", path: url };
}

/**
 * The env upstream's storage initializer injector adds beside the mounts: with any host
 * path mounted, `DATA_PATH_PREFIX=/home/data` (Sedna's library prefixes the relative
 * paths of a dataset's index file with it).
 */
export function storageEnv(plans: readonly StoragePlan[]): EnvVar[] {
  return plans.some((p) => p.kind === "host") ? [{ name: "DATA_PATH_PREFIX", value: HOST_DATA_DIR }] : [];
}

/**
 * Adds what the plans need to a pod spec: one emptyDir and one init container for the
 * downloads (with each credential Secret as env), one hostPath volume per host directory,
 * mounted in every container. Pure: returns a new spec.
 */
export function applyStorage(spec: PodSpec, plans: readonly StoragePlan[]): PodSpec {
  const downloads = plans.filter((p) => p.kind === "download");
  const hostDirs = [...new Set(plans.flatMap((p) => (p.kind === "host" ? [p.hostDir] : [])))].sort();
  const volumes: Record<string, unknown>[] = [];
  const mounts: Record<string, unknown>[] = [];
  hostDirs.forEach((dir, index) => {
    const name = `sedna-host-${index}`;
    volumes.push({ name, hostPath: { path: dir, type: "DirectoryOrCreate" } });
    mounts.push({ name, mountPath: `${HOST_DATA_DIR}${dir === "/" ? "" : dir}` });
  });
  let initContainers = spec.initContainers ?? [];
  if (downloads.length > 0) {
    volumes.push({ name: DOWNLOAD_VOLUME, emptyDir: {} });
    mounts.push({ name: DOWNLOAD_VOLUME, mountPath: DOWNLOAD_DIR });
    const secrets = [...new Set(downloads.flatMap((d) => (d.credentialName ? [d.credentialName] : [])))].sort();
    const initializer: Record<string, unknown> = {
      name: "storage-initializer",
      image: STORAGE_INITIALIZER_IMAGE,
      imagePullPolicy: "IfNotPresent",
      args: downloads.flatMap((d) => [d.source, d.path]),
      volumeMounts: [{ name: DOWNLOAD_VOLUME, mountPath: DOWNLOAD_DIR }],
    };
    if (secrets.length > 0) initializer["envFrom"] = secrets.map((name) => ({ secretRef: { name } }));
    initContainers = [...initContainers, initializer as PodSpec["containers"][number]];
  }
  if (volumes.length === 0) return spec;
  return {
    ...spec,
    ...(initContainers.length > 0 ? { initContainers } : {}),
    volumes: [...(spec.volumes ?? []), ...volumes] as PodSpec["volumes"],
    containers: spec.containers.map((c) => ({ ...c, volumeMounts: [...asArray(c["volumeMounts"]), ...mounts] })),
  };
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
