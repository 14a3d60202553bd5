/**
 * Fault injection for the sim's API server, for chaos tests: answer chosen requests with
 * an error status (409, 429 with `Retry-After`, 500, ...) or slowly; end every watch with
 * `410 Gone` again and again (a storm); and send watch events twice or out of order. All
 * chance is seeded, so a run can be repeated. Off (no rule, no storm, no shaping) the API
 * server behaves exactly as without it.
 */
import { FaultRule, selects, type FaultAnswer, type FaultRequest, type ParsedFaultRule } from "./rules.ts";
import { WatchShaper, WatchShaping, type WatchShapingInput } from "./watch-shaper.ts";
import { seededRandom } from "./random.ts";
import { WriteRecorder, type LostWrites, type RecordableStore } from "./lost-writes.ts";

/** What lost writes need of the store: its commits, and its history to compact. */
export interface RewindableStore extends RecordableStore {
  readonly resourceVersion: number;
  readonly history: { compact(rv: number): void };
}

/** A request one of the rules selected, answered by it (`answer`) or let through. */
export interface FaultJournalEntry {
  /** `Date.now()` when it arrived. */
  readonly at: number;
  readonly rule: number;
  readonly method: string;
  readonly path: string;
  readonly name: string | undefined;
  readonly answer: FaultAnswer | undefined;
}

/** How the API server lets faults end its watches. */
export interface WatchControl {
  /** Ends every open watch; with `gone`, after an `ERROR` event carrying a 410 Expired Status. */
  endWatches(gone: boolean): number;
}

/** A 410 storm: every open watch ended with `410 Gone`, `rounds` times, `intervalMs` apart. */
export interface GoneStorm {
  readonly rounds: number;
  readonly intervalMs: number;
}

/** How many journal entries are kept (the oldest go first). */
const JOURNAL_LIMIT = 20_000;

/** The sim's faults. One per API server; nothing global. */
export class SimFaults {
  #random: () => number;
  readonly #rules = new Map<number, { rule: ParsedFaultRule; left: number | undefined }>();
  readonly #journal: FaultJournalEntry[] = [];
  readonly #now: () => number;
  #next = 1;
  #shaping: WatchShaping | undefined;
  #control: WatchControl | undefined;
  #storm: ReturnType<typeof setTimeout> | undefined;
  #goneSent = 0;
  #store: RewindableStore | undefined;
  #writes: WriteRecorder | undefined;

  /** `seed` makes every chance repeatable. */
  constructor(seed = 1, now: () => number = Date.now) {
    this.#random = seededRandom(seed);
    this.#now = now;
  }

  /** Starts the chances again from `seed` (a chaos run's `--seed`). */
  reseed(seed: number): void {
    this.#random = seededRandom(seed);
  }

  /** Adds a rule (checked with zod); returns its id for {@link remove}. */
  add(rule: FaultRule): number {
    const parsed = FaultRule.parse(rule);
    const id = this.#next++;
    this.#rules.set(id, { rule: parsed, left: parsed.count });
    return id;
  }

  /** Removes a rule; its journal entries stay. */
  remove(id: number): void {
    this.#rules.delete(id);
  }

  /** Removes every rule, ends a storm, stops shaping watches and recording writes. */
  clear(): void {
    this.#rules.clear();
    this.stopStorm();
    this.#shaping = undefined;
    this.#writes?.stop();
  }

  /** Called by the sim: the store whose writes {@link loseWrites} can undo. */
  attachStore(store: RewindableStore): void {
    this.#store = store;
  }

  /** Keeps every write for `windowMs` from now on, so that {@link loseWrites} can lose them. */
  recordWrites(windowMs: number): void {
    if (!this.#store) throw new Error("no store attached: lost writes need the sim's store");
    this.#writes ??= new WriteRecorder(this.#store);
    this.#writes.record(windowMs);
  }

  /**
   * The API server restarts on a store that lost the writes it acknowledged in the last
   * `lastMs`: they are undone (newest first), the history is compacted and every watch
   * ends with `410 Gone`, so clients relist and find the older state. Needs
   * {@link recordWrites} first.
   */
  loseWrites(lastMs: number): LostWrites & { readonly watchesEnded: number } {
    const store = this.#store;
    if (!store || !this.#writes?.recording) throw new Error("not recording writes: call recordWrites first");
    const lost = this.#writes.rewind(lastMs);
    store.history.compact(store.resourceVersion);
    return { ...lost, watchesEnded: this.goneNow() };
  }

  /** The rules in force, with their ids and what each may still answer. */
  rules(): { readonly id: number; readonly rule: ParsedFaultRule; readonly left: number | undefined }[] {
    return [...this.#rules].map(([id, entry]) => ({ id, rule: entry.rule, left: entry.left }));
  }

  /** How many requests rule `id` may still answer (`undefined`: unlimited or removed). */
  left(id: number): number | undefined {
    return this.#rules.get(id)?.left;
  }

  /** Whether some rule selects `request` (the server then reads a create's body for its name before deciding). */
  selected(request: FaultRequest): boolean {
    for (const { rule } of this.#rules.values()) if (selects(rule, request)) return true;
    return false;
  }

  /**
   * How to answer `request`: the first rule that selects it and is not spent, if its
   * chance comes up; `undefined` to serve it as usual. Every selected request is journaled.
   */
  decide(request: FaultRequest): FaultAnswer | undefined {
    let decided: FaultAnswer | undefined;
    let ruleId = 0;
    for (const [id, entry] of this.#rules) {
      if (!selects(entry.rule, request)) continue;
      ruleId ||= id;
      if (entry.left === 0) continue;
      if (entry.rule.probability < 1 && this.#random() >= entry.rule.probability) continue;
      if (entry.left !== undefined) entry.left -= 1;
      decided = entry.rule.answer;
      ruleId = id;
      break;
    }
    if (ruleId !== 0) this.#record({ at: this.#now(), rule: ruleId, method: request.method, path: request.path, name: request.name, answer: decided });
    return decided;
  }

  /** The requests rules selected, oldest first (at most the last 20,000). */
  journal(): readonly FaultJournalEntry[] {
    return this.#journal;
  }

  /** Forgets the journal. */
  clearJournal(): void {
    this.#journal.length = 0;
  }

  #record(entry: FaultJournalEntry): void {
    this.#journal.push(entry);
    if (this.#journal.length > JOURNAL_LIMIT) this.#journal.splice(0, this.#journal.length - JOURNAL_LIMIT);
  }

  /** Called by the API server: how faults end its watches. */
  attach(control: WatchControl): void {
    this.#control = control;
  }

  /** Ends every open watch with `410 Gone` now; returns how many. */
  goneNow(): number {
    const ended = this.#control?.endWatches(true) ?? 0;
    this.#goneSent += ended;
    return ended;
  }

  /** Starts a storm (ending one already running); resolves when its last round is done. */
  goneStorm(storm: GoneStorm): Promise<number> {
    this.stopStorm();
    let round = 0;
    let ended = 0;
    return new Promise((resolve) => {
      const tick = (): void => {
        ended += this.goneNow();
        round += 1;
        if (round >= storm.rounds) {
          this.#storm = undefined;
          resolve(ended);
          return;
        }
        this.#storm = setTimeout(tick, storm.intervalMs);
      };
      tick();
    });
  }

  /** Ends a storm before its last round. */
  stopStorm(): void {
    if (this.#storm) clearTimeout(this.#storm);
    this.#storm = undefined;
  }

  /** How many watches faults ended with 410 so far. */
  get goneSent(): number {
    return this.#goneSent;
  }

  /** Sends watch events twice, or two out of order, by chance, from now on (new and open watches). */
  shapeWatches(shaping: WatchShapingInput): void {
    this.#shaping = WatchShaping.parse(shaping);
  }

  /** Stops shaping watch events (a held event is still sent). */
  stopShaping(): void {
    this.#shaping = undefined;
  }

  /** What shaping did so far. */
  readonly shaped = { duplicated: 0, reordered: 0 };

  /** A shaper for one watch stream: it consults the current shaping for each event. */
  shaper(write: (line: string) => void): WatchShaper {
    return new WatchShaper(write, () => this.#shaping, () => this.#random(), this.shaped);
  }
}
