/**
 * Taints and tolerations as Kubernetes matches them (`Toleration.ToleratesTaint`,
 * k8s.io/api/core/v1/toleration.go): one rule for the sim's scheduler and taint manager
 * and the controllers' schedulers. Pure.
 */

/** What a toleration match reads of a toleration; an absent field is empty. */
export interface Toleration {
  readonly key?: string | undefined;
  readonly operator?: string | undefined;
  readonly value?: string | undefined;
  readonly effect?: string | undefined;
}

/** What a toleration match reads of a taint. */
export interface Taint {
  readonly key: string;
  readonly value?: string | undefined;
  readonly effect: string;
}

/**
 * Whether `toleration` tolerates `taint`: an empty effect matches every effect, an empty
 * key every key; operator `Exists` matches any value, `Equal` (or none) the same value
 * (an absent value is empty), any other operator nothing.
 */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  const operator = toleration.operator ?? "";
  if (operator === "" || operator === "Equal") return (toleration.value ?? "") === (taint.value ?? "");
  return operator === "Exists";
}

/** Whether some toleration tolerates `taint` (`TolerationsTolerateTaint`). */
export function taintTolerated(tolerations: readonly Toleration[], taint: Taint): boolean {
  return tolerations.some((toleration) => toleratesTaint(toleration, taint));
}
