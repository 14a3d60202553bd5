/**
 * What the Worker imports from `cloudflare:workers`, for its bundle run in Node by the
 * in-process baseline (ADR 0015): only `DurableObject`, the base class of edgeloop's
 * Durable Objects, which keeps the state and the env it is constructed with.
 */

/** The base class: `this.ctx` and `this.env`, as workerd's. */
export class DurableObject<Env = unknown> {
  protected readonly ctx: unknown;
  protected readonly env: Env;

  constructor(ctx: unknown, env: Env) {
    this.ctx = ctx;
    this.env = env;
  }
}
