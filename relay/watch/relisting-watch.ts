/**
 * client-node's watch, with changes for the one ListWatch it serves (`./informer.ts`).
 */
import { Watch as KubeWatch, type KubeConfig } from "@kubernetes/client-node";
import type { KubeObject } from "../../protocol/index.ts";
import { setInactivityTimeout } from "./inactivity.ts";
import { isTooLargeResourceVersion, type RelistReason } from "./relist.ts";
import type { ObjectTransform } from "./transform.ts";

/** The silence bound by default: the lower end of client-go's 5–10 minute watch timeouts. */
export const DEFAULT_SILENCE_SECONDS = 300;

/**
 * The `timeoutSeconds` a watch asks the API server for: between one and two silence
 * bounds, at random, as client-go spreads its watches over `minWatchTimeout` to twice
 * that, so that watches started together do not all reconnect together.
 */
export function watchTimeoutSeconds(silenceSeconds: number, random: number): number {
  return Math.max(1, Math.round(silenceSeconds * (1 + random)));
}

/** An error client-node's ListWatch treats as 410 Gone: it drops its resourceVersion and relists. */
const GONE = Object.assign(new Error("relist"), { statusCode: 410 });

type WatchCallback = (phase: string, object: unknown, watchObject?: unknown) => void;
type WatchDone = (error: unknown) => void;

/** Whether a watch ended on client-node's inactivity timeout (ListWatch then resumes from its resourceVersion). */
function isTimeout(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "TimeoutError";
}

/** What a {@link RelistingWatch} tells its informer, besides ListWatch's own callbacks. */
export interface WatchObserver {
  /** A watch request's answer (`rest_client_requests_total`): its status code, or `<error>` when none came. */
  answered(code: string): void;
  /** A MODIFIED object is about to be stored (the cache still holds the state it replaces). */
  modifying(object: KubeObject): void;
  /** The watch was silent for the bound and is resumed from its resourceVersion. */
  silent(): void;
}

/**
 * client-node's watch, with changes for the one ListWatch it serves: a 504
 * ResourceVersionTooLarge ERROR is passed on as a 410, because ListWatch would otherwise
 * re-watch from the same unreachable resourceVersion for ever (it relists only on 410);
 * the watch in progress can be ended as if Gone, to relist on demand; it asks for
 * bookmarks (so a quiet kind is not taken for a dead watch) and a server-side timeout;
 * its inactivity bound is the silence bound; and each object is cut by the store's
 * transform before ListWatch stores it.
 */
export class RelistingWatch extends KubeWatch {
  /** Why the next list happens, when known. */
  reason: RelistReason | undefined;
  #end: WatchDone | undefined;
  /** A relist asked for while no watch was open: the next watch ends at once. */
  #pending = false;
  readonly #silenceSeconds: number;
  readonly #transform: ObjectTransform | undefined;
  readonly #observer: WatchObserver;

  constructor(kc: KubeConfig, silenceSeconds: number, transform: ObjectTransform | undefined, observer: WatchObserver) {
    super(kc);
    this.#silenceSeconds = silenceSeconds;
    this.#transform = transform;
    this.#observer = observer;
    setInactivityTimeout(this, silenceSeconds * 1000);
  }

  override async watch(path: string, query: Record<string, string | number | boolean | undefined>, callback: WatchCallback, done: WatchDone): Promise<AbortController> {
    if (this.#pending) {
      this.#pending = false;
      this.reason = "forced";
      queueMicrotask(() => done(GONE));
      return new AbortController();
    }
    let ended = false;
    // An end before client-node's watch() returns is the request's own failure (its status, or no answer).
    let opening = true;
    let failed: unknown = undefined;
    // Once: the request aborted by relist() still reports its own end later.
    const end: WatchDone = (error) => {
      if (opening && error && error !== GONE) failed = error;
      if (ended) return;
      ended = true;
      if (this.#end === end) this.#end = undefined;
      const failure = error as { statusCode?: unknown; code?: unknown } | null;
      if ((failure?.statusCode ?? failure?.code) === 410) this.reason ??= "expired";
      if (isTimeout(error)) this.#observer.silent();
      done(error);
    };
    this.#end = end;
    const onEvent: WatchCallback = (phase, object, watchObject) => this.#event(phase, object, watchObject, callback);
    // Bookmarks keep a quiet kind's watch from looking dead; the server ends it in time.
    const asked = { ...query, allowWatchBookmarks: true, timeoutSeconds: watchTimeoutSeconds(this.#silenceSeconds, Math.random()) };
    const controller = await super.watch(path, asked, onEvent, end);
    opening = false;
    const status = (failed as { statusCode?: unknown } | undefined)?.statusCode;
    this.#observer.answered(failed === undefined ? "200" : typeof status === "number" ? String(status) : "<error>");
    return controller;
  }

  /**
   * Ends the watch in progress as if Gone; when none is open (a list is running, the
   * informer waits to reconnect or retries after an error), the next one.
   */
  relist(): void {
    const end = this.#end;
    if (!end) {
      this.#pending = true;
      return;
    }
    this.reason = "forced";
    end(GONE);
  }

  /** One watch event on its way to ListWatch: an unreachable resourceVersion read as Gone, an object cut to what the store keeps. */
  #event(phase: string, object: unknown, watchObject: unknown, callback: WatchCallback): void {
    if (phase === "ERROR" && isTooLargeResourceVersion(object)) {
      this.reason = "too-large";
      callback(phase, { ...(object as object), code: 410 }, watchObject);
      return;
    }
    if (phase === "ERROR" && (object as { code?: unknown }).code === 410) this.reason ??= "expired";
    const kept = this.#transform && phase !== "ERROR" && phase !== "BOOKMARK" && typeof object === "object" && object !== null ? this.#transform.project(object) : object;
    if (phase === "MODIFIED" && typeof kept === "object" && kept !== null) this.#observer.modifying(kept as KubeObject);
    callback(phase, kept, watchObject);
  }
}
