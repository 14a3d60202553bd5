/**
 * One selector requirement (`key`, `operator`, `values`) against the value a label (or a
 * field) has, as Kubernetes' label and node selectors read it: the set operators of
 * label selectors, and `Gt`/`Lt` of node selector requirements, which compare base-10
 * integers and hold for nothing else. Shared by every side that selects: the relay's
 * narrowing, the sim's scheduler, the controllers' schedulers.
 */

/** Kubernetes' operators; an unknown one holds for nothing. */
export type SelectorOperator = "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt";

/** An integer as Kubernetes parses a Gt/Lt operand (base-10 int64), or undefined. */
function integer(value: string | undefined): number | undefined {
  return value !== undefined && /^[+-]?\d{1,18}$/.test(value) ? Number(value) : undefined;
}

/** Whether a requirement holds for `value` (undefined: the label is absent). */
export function requirementHolds(operator: string, values: readonly string[], value: string | undefined): boolean {
  switch (operator) {
    case "In":
      return value !== undefined && values.includes(value);
    case "NotIn":
      return value === undefined || !values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    case "Gt":
    case "Lt": {
      const left = integer(value);
      const right = values.length === 1 ? integer(values[0]) : undefined;
      if (left === undefined || right === undefined) return false;
      return operator === "Gt" ? left > right : left < right;
    }
    default:
      return false;
  }
}
