/**
 * A conformance scenario: a table of requests run in order against each API server,
 * with values one step captured (a resourceVersion, a uid) substituted into later ones.
 * Each step's answer, normalised, is compared between the servers.
 *
 * In `path`, `query` values and string leaves of `body`: `{ns}` is the scenario's
 * namespace, `{name}` a captured value (`capture: { name: "metadata.resourceVersion" }`).
 */

/** How much of a step's answer is compared. */
export type Compare =
  /** Status code and normalised body. */
  | "all"
  /** The status code only (the body is the server's own, e.g. a Node's status). */
  | "status"
  /** Nothing: a set-up step whose answer does not matter beyond succeeding on both. */
  | "none";

/** Poll the request until its answer matches (a controller acting), then compare that answer. */
export interface Until {
  readonly status?: number;
  /** A dotted path into the body (`status.succeeded`, `items.length`) and the value it must have. */
  readonly path?: string;
  readonly equals?: unknown;
  /** A dotted path that must hold a value (any), instead of `path`/`equals`. */
  readonly exists?: string;
  /** Or else this status (a 404 when the object went instead). */
  readonly orStatus?: number;
  /** Default 20 s. */
  readonly timeoutMs?: number;
}

/** One HTTP request of a scenario. */
export interface RequestStep {
  /** Shown in a difference; defaults to `METHOD path`. */
  readonly name?: string;
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly contentType?: string;
  readonly accept?: string;
  /** Variables taken from the (raw) answer body by dotted path. */
  readonly capture?: Readonly<Record<string, string>>;
  readonly compare?: Compare;
  /** Dotted paths (`*` for any key or index) into `{ code, body }` dropped from both normalised answers: documented server-specific fields. */
  readonly ignore?: readonly string[];
  readonly until?: Until;
  /** Read a watch stream instead of one body: until `count` events came, at most `timeoutMs` (default 3 s). */
  readonly watch?: { readonly count: number; readonly timeoutMs?: number };
}

/** Something done to a server outside its API (same effect on both). */
export interface ActionStep {
  /** `compact`: etcd (the sim's event history) compacted to now. `restart`: that, then the API server restarted (the sim's watches ended). */
  readonly action: "compact" | "restart";
}

export type Step = RequestStep | ActionStep;

export interface Scenario {
  /** Unique; `--only WORD` picks scenarios whose name contains WORD. */
  readonly name: string;
  /** Needs the Sedna CRDs installed on both servers first. */
  readonly crds?: boolean;
  /** Takes over 10 s (controllers' timers): run only with `--slow`. */
  readonly slow?: boolean;
  readonly steps: readonly Step[];
}

export function isAction(step: Step): step is ActionStep {
  return "action" in step;
}
