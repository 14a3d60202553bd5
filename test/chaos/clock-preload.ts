/**
 * A test-only preload (`node --import ./test/chaos/clock-preload.ts`) that steps the wall
 * clock of one process, as libfaketime with FAKETIME_DONT_FAKE_MONOTONIC does: `Date.now()`
 * and `new Date()` read the real time plus an offset; `performance.now()`,
 * `process.hrtime` and timers are left alone. The offset (ms, may be negative) is read
 * from the file `EDGELOOP_CHAOS_CLOCK_FILE` names at start and again on each SIGUSR2, so a
 * restarted process keeps the machine's stepped clock. Never loaded outside the chaos suite.
 */
import { readFileSync } from "node:fs";
import { clockOffset } from "./clock-offset.ts";

const file = process.env.EDGELOOP_CHAOS_CLOCK_FILE;
if (file) {
  let offsetMs = 0;
  const read = (): void => {
    offsetMs = clockOffset(readText(file));
  };
  read();
  process.on("SIGUSR2", read);
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  /** `Date` with the stepped clock: only the no-argument forms read the time. */
  class SteppedDate extends RealDate {
    constructor(...args: ConstructorParameters<DateConstructor> | []) {
      if (args.length === 0) super(realNow() + offsetMs);
      else super(...(args as ConstructorParameters<DateConstructor>));
    }
    static override now(): number {
      return realNow() + offsetMs;
    }
    // A Date made before the preload ran, or by Node's internals, is a Date still.
    static override [Symbol.hasInstance](value: unknown): boolean {
      return value instanceof RealDate;
    }
  }
  // Called without `new`, Date returns the time as a string, from the stepped clock too.
  const stepped = new Proxy(SteppedDate, { apply: () => new SteppedDate().toString() });
  globalThis.Date = stepped as DateConstructor;
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "0";
  }
}
