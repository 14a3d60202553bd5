import { DurableObject } from "cloudflare:workers";
import type { ClaimRequest, ClaimsAnswer, LedgerContract, SignatureOnce } from "./contracts.ts";
import { Timers } from "./timers.ts";

/** One caller's claims waiting for the next write, and how to answer it. */
interface Waiting {
  readonly claims: readonly ClaimRequest[];
  readonly once: SignatureOnce | undefined;
  readonly resolve: (answer: ClaimsAnswer) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The recreated-pods dedupe map, one object per namespace: `claim(key, ttl)` is true
 * for the first caller and false for repeats until the claim expires. Expired claims
 * are swept by the alarm (one timer per claim, see `Timers`).
 *
 * Claims are written in groups: the calls that arrive while a write is pending are
 * decided together, one after another in arrival order, and share its commit. Each
 * commit waits for the disk (the output gate holds every answer until it is durable), and
 * one commit per claim capped self-healing at 50–75 deletions/s on a local stack.
 */
export class RecreationLedger extends DurableObject<Record<string, unknown>> implements LedgerContract {
  readonly #timers: Timers;
  #waiting: Waiting[] = [];

  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, expires INTEGER NOT NULL)");
    // A table of its own, not a column of `claims`: objects created before it existed keep working.
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires INTEGER NOT NULL)");
    // Signatures of the requests whose claims were decided here (see `claimAll`).
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS seen (signature TEXT PRIMARY KEY, expires INTEGER NOT NULL)");
    ctx.storage.sql.exec("CREATE INDEX IF NOT EXISTS seen_expires ON seen (expires)");
    this.#timers = new Timers(ctx.storage);
  }

  /**
   * Every claim of one plan, answered in order (see the contract). The signature, when
   * given, is checked and recorded in the same transaction as the claims: a request's
   * replay check then costs no write of its own (the replay guard's was a second commit
   * per healed pod).
   */
  claimAll(claims: readonly ClaimRequest[], once?: SignatureOnce): Promise<ClaimsAnswer> {
    return new Promise<ClaimsAnswer>((resolve, reject) => {
      this.#waiting.push({ claims, once, resolve, reject });
      // A timer, not a microtask: calls already delivered to the object join this write.
      if (this.#waiting.length === 1) setTimeout(() => void this.#write(), 0);
    });
  }

  /** Decides every waiting call, each in a transaction of its own, then re-arms the sweep once and answers. */
  async #write(): Promise<void> {
    const batch = this.#waiting.splice(0);
    const now = Date.now();
    const answered: { waiting: Waiting; answer: ClaimsAnswer }[] = [];
    try {
      this.ctx.storage.sql.exec("DELETE FROM seen WHERE expires <= ?", now);
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
      return;
    }
    for (const waiting of batch) {
      try {
        answered.push({ waiting, answer: this.ctx.storage.transactionSync(() => this.#decide(waiting, now)) });
      } catch (error) {
        waiting.reject(error);
      }
    }
    try {
      if (answered.some(({ answer }) => !answer.replayed && answer.granted.includes(true))) await this.#timers.rearm();
    } catch (error) {
      for (const { waiting } of answered) waiting.reject(error);
      return;
    }
    for (const { waiting, answer } of answered) waiting.resolve(answer);
  }

  /** One caller's claims: refused whole when its signature was seen, else each granted when free. */
  #decide(waiting: Waiting, now: number): ClaimsAnswer {
    const { once } = waiting;
    if (once) {
      const seen = this.ctx.storage.sql.exec<{ expires: number }>("SELECT expires FROM seen WHERE signature = ?", once.signature).toArray()[0];
      if (seen && seen.expires > now) return { replayed: true };
      this.ctx.storage.sql.exec("INSERT INTO seen (signature, expires) VALUES (?, ?) ON CONFLICT (signature) DO UPDATE SET expires = excluded.expires", once.signature, once.expiresAt);
    }
    return { replayed: false, granted: waiting.claims.map(({ key, ttlSeconds }) => this.#grant(key, ttlSeconds, now)) };
  }

  /** Holds `key` for `ttlSeconds` unless it is held; true when it was free. */
  #grant(key: string, ttlSeconds: number, now: number): boolean {
    const held = this.ctx.storage.sql.exec<{ expires: number }>("SELECT expires FROM claims WHERE key = ?", key).toArray()[0];
    if (held && held.expires > now) return false;
    const expires = now + Math.max(1, ttlSeconds) * 1000;
    this.ctx.storage.sql.exec("INSERT INTO claims (key, expires) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET expires = excluded.expires", key, expires);
    this.#timers.set(key, expires);
    return true;
  }

  /**
   * A claim that carries a value: the first caller's `value` is held under `key` for
   * `ttlSeconds`, and every caller until then gets it back. An HTTP API answers a
   * client's retry with the first reply this way, and applies nothing twice.
   */
  async remember(key: string, ttlSeconds: number, value: string): Promise<string> {
    const now = Date.now();
    // Swept here rather than by timers: values live seconds, the table stays a handful of
    // rows, and an API call is spared the alarm's storage round trips.
    this.ctx.storage.sql.exec("DELETE FROM replies WHERE expires <= ?", now);
    const held = this.ctx.storage.sql.exec<{ value: string }>("SELECT value FROM replies WHERE key = ?", key).toArray()[0];
    if (held) return held.value;
    this.ctx.storage.sql.exec("INSERT INTO replies (key, value, expires) VALUES (?, ?, ?)", key, value, now + Math.max(1, ttlSeconds) * 1000);
    return value;
  }

  /**
   * Drops the claim (or remembered value) of `key`, so the next claim of it is granted:
   * the relay reports the claimed action was not applied (a 409 or a transient error),
   * and a claim must guard only a replacement that happened. Its timer is cancelled too.
   */
  async release(key: string): Promise<boolean> {
    const replies = this.ctx.storage.sql.exec("DELETE FROM replies WHERE key = ?", key).rowsWritten;
    const claims = this.ctx.storage.sql.exec("DELETE FROM claims WHERE key = ?", key).rowsWritten;
    if (claims > 0) await this.#timers.cancel(key);
    return claims + replies > 0;
  }

  /** Claims and remembered values still held (expired ones that the alarm has not swept yet included). */
  async size(): Promise<number> {
    const claims = this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM claims").one().n;
    return claims + this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM replies").one().n;
  }

  /** Sweeps the claims whose time is up, then re-arms for the next one. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    for (const timer of this.#timers.takeDue(now)) {
      this.ctx.storage.sql.exec("DELETE FROM claims WHERE key = ? AND expires <= ?", timer.id, now);
    }
    await this.#timers.rearm();
  }
}
