import { ProbedDurableObject } from "../probed.ts";
import type { ClaimRequest, ClaimsAnswer, LedgerContract, SignatureOnce } from "../contracts.ts";
import { SeenSignatures } from "../signatures.ts";
import { Claims } from "./claims.ts";
import { GroupedWrites, type Outcome } from "./grouped-writes.ts";
import { Replies } from "./replies.ts";

/** One caller's claims, and its request's signature when the replay check rides on them. */
interface ClaimCall {
  readonly claims: readonly ClaimRequest[];
  readonly once: SignatureOnce | undefined;
}

/**
 * The recreated-pods ledger, one object per namespace: claims granted to their first
 * caller until they expire (`claims.ts`), API replies held for a client's retry
 * (`replies.ts`), and the signatures of the requests whose claims it decided
 * (`../signatures.ts`), in one SQLite store so that a plan's claims and its replay check
 * share one commit, and the commits of calls that arrive together are one
 * (`grouped-writes.ts`).
 */
export class RecreationLedger extends ProbedDurableObject implements LedgerContract {
  readonly #claims: Claims;
  readonly #replies: Replies;
  readonly #seen: SeenSignatures;
  readonly #writes = new GroupedWrites<ClaimCall, ClaimsAnswer>((calls) => this.#write(calls));

  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    this.#claims = new Claims(this.storage);
    this.#replies = new Replies(this.sql);
    this.#seen = new SeenSignatures(this.sql);
  }

  /**
   * Every claim of one plan, answered in order (see the contract). The signature, when
   * given, is checked and recorded in the same transaction as the claims: a request's
   * replay check then costs no write of its own (the replay guard's was a second commit
   * per healed pod).
   */
  claimAll(claims: readonly ClaimRequest[], once?: SignatureOnce): Promise<ClaimsAnswer> {
    return this.served(() => this.#writes.submit({ claims, once }));
  }

  /** Decides every call of a group, each in a transaction of its own, then re-arms the sweep once. */
  async #write(calls: readonly ClaimCall[]): Promise<Outcome<ClaimsAnswer>[]> {
    const now = Date.now();
    this.#seen.sweep(now);
    const outcomes = calls.map((call): Outcome<ClaimsAnswer> => {
      try {
        return { ok: true, answer: this.storage.transactionSync(() => this.#decide(call, now)) };
      } catch (error) {
        return { ok: false, error };
      }
    });
    try {
      if (outcomes.some((outcome) => outcome.ok && !outcome.answer.replayed && outcome.answer.granted.includes(true))) await this.#claims.rearm();
    } catch (error) {
      return outcomes.map((outcome) => (outcome.ok ? { ok: false, error } : outcome));
    }
    return outcomes;
  }

  /** One caller's claims: refused whole when its signature was seen, else each granted when free. */
  #decide(call: ClaimCall, now: number): ClaimsAnswer {
    if (call.once && !this.#seen.first(call.once.signature, call.once.expiresAt, now)) return { replayed: true };
    return { replayed: false, granted: call.claims.map(({ key, ttlSeconds }) => this.#claims.grant(key, ttlSeconds, now)) };
  }

  /**
   * A claim that carries a value: the first caller's `value` is held under `key` for
   * `ttlSeconds`, and every caller until then gets it back (see `replies.ts`).
   */
  remember(key: string, ttlSeconds: number, value: string): Promise<string> {
    return this.served(() => this.#replies.remember(key, ttlSeconds, value, Date.now()));
  }

  /**
   * Drops the claim (or remembered value) of `key`, so the next claim of it is granted:
   * the relay reports the claimed action was not applied (a 409 or a transient error),
   * and a claim must guard only a replacement that happened.
   */
  release(key: string): Promise<boolean> {
    return this.served(async () => {
      const reply = this.#replies.release(key);
      const claim = await this.#claims.release(key);
      return reply || claim;
    });
  }

  /** Claims and remembered values still held (expired ones not swept yet included). */
  size(): Promise<number> {
    return this.served(() => this.#claims.count() + this.#replies.count());
  }

  /** Sweeps the claims whose time is up, then re-arms for the next one. */
  override alarm(): Promise<void> {
    return this.served(() => this.#claims.sweep(Date.now()));
  }
}
