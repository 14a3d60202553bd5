/**
 * Logs with a level, in one of two formats: JSON lines for machines (piped output, log
 * collectors) or readable text lines for a person at a terminal. The entry point picks
 * the format once ({@link chooseLogFormat}) and hands it down.
 */
export const LEVELS = ["debug", "info", "warn", "error"] as const;
export type Level = (typeof LEVELS)[number];

/** `json`: one JSON object per line; `text`: `HH:MM:SS level component message key=value`. */
export const LOG_FORMATS = ["json", "text"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** A logger: one line per call. */
export type Logger = (level: Level, msg: string, fields?: Record<string, unknown>) => void;

/** How a logger writes. */
export interface LoggerOptions {
  /** Default `json`. */
  readonly format?: LogFormat;
  /** Where lines go (default stdout). */
  readonly write?: (line: string) => void;
}

/**
 * The format an entry point logs in: the one asked for (`--log-format`), else text on a
 * terminal and JSON when the output is piped or redirected.
 */
export function chooseLogFormat(requested: LogFormat | undefined, isTTY: boolean | undefined): LogFormat {
  return requested ?? (isTTY === true ? "text" : "json");
}

/** A logger writing lines at or above `threshold`. */
export function createLogger(threshold: Level, component: string, options: LoggerOptions = {}): Logger {
  const min = LEVELS.indexOf(threshold);
  const write = options.write ?? ((line: string): void => void process.stdout.write(`${line}\n`));
  const render = options.format === "text" ? textLine : jsonLine;
  return (level, msg, fields = {}) => {
    if (LEVELS.indexOf(level) < min) return;
    write(render(new Date(), level, component, msg, fields));
  };
}

function jsonLine(time: Date, level: Level, component: string, msg: string, fields: Record<string, unknown>): string {
  return JSON.stringify({ time: time.toISOString(), level, component, msg, ...fields });
}

/** `12:03:04 info  relay  created Pod default/x  key=value`: time of day only, a person knows the date. */
export function textLine(time: Date, level: Level, component: string, msg: string, fields: Record<string, unknown>): string {
  const clock = time.toTimeString().slice(0, 8);
  const head = `${clock} ${level.padEnd(5)} ${component.padEnd(5)} ${msg}`;
  const rest = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${textValue(value)}`);
  return rest.length === 0 ? head : `${head}  ${rest.join(" ")}`;
}

function textValue(value: unknown): string {
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (value instanceof Error) return JSON.stringify(value.message);
  return JSON.stringify(value) ?? String(value);
}

/** The logger of a one-shot script: info and up, text on a terminal, JSON lines when piped. */
export function scriptLogger(component: string): Logger {
  return createLogger("info", component, { format: chooseLogFormat(undefined, process.stdout.isTTY) });
}
