/** Structured JSON logs with a level. */
export const LEVELS = ["debug", "info", "warn", "error"] as const;
export type Level = (typeof LEVELS)[number];

/** A logger: one JSON line per call. */
export type Logger = (level: Level, msg: string, fields?: Record<string, unknown>) => void;

/** A logger writing lines at or above `threshold` to `write`. */
export function createLogger(threshold: Level, component: string, write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Logger {
  const min = LEVELS.indexOf(threshold);
  return (level, msg, fields = {}) => {
    if (LEVELS.indexOf(level) < min) return;
    write(JSON.stringify({ time: new Date().toISOString(), level, component, msg, ...fields }));
  };
}
