import type { PodSpec } from "./pod.ts";

/** One environment variable with a literal value. */
export interface EnvVar {
  readonly name: string;
  readonly value: string;
}

/**
 * Injects env vars into every container: the user's variables are kept, except those
 * edgeloop sets (ours win, as upstream's appended ones did), and `secretEnv` Secrets are
 * added as `envFrom`. Pure: returns a new spec.
 */
export function injectEnv(spec: PodSpec, env: readonly EnvVar[], secretEnv: readonly string[] = []): PodSpec {
  const names = new Set(env.map((e) => e.name));
  return {
    ...spec,
    containers: spec.containers.map((container) => {
      const out = { ...container, env: [...(container.env ?? []).filter((e) => !names.has(e.name)), ...env.map((e) => ({ ...e }))] };
      if (secretEnv.length === 0) return out;
      const envFrom = Array.isArray(container["envFrom"]) ? container["envFrom"] : [];
      return { ...out, envFrom: [...envFrom, ...secretEnv.map((name) => ({ secretRef: { name } }))] };
    }),
  };
}
