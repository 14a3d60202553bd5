/**
 * What a simulated container does, read from its `command` + `args` where they are a
 * common one: `sleep N` (or `infinity`), `echo ...`, `true`, `false`, `exit N` and
 * `sh -c` / `bash -c` scripts made of those, joined by `;`, `&&`, `||` or newlines, with
 * `>&2`, `2>&1` and `> file` redirections (a file's output is not logged). Any
 * other program (and an image's own entrypoint, when neither is given) runs until it is
 * stopped, as a server would. Pure: the kubelet turns a program into container states and
 * log lines.
 */

/** A line a container writes, `at` seconds after it starts. */
export interface OutputLine {
  readonly at: number;
  readonly stream: "stdout" | "stderr";
  readonly text: string;
}

/** What a started container does. */
export interface ContainerProgram {
  readonly output: readonly OutputLine[];
  /** Seconds until it exits by itself; undefined when it runs until stopped. */
  readonly exitAfter: number | undefined;
  /** Its exit code when it exits by itself. */
  readonly exitCode: number;
}

/** The container fields the interpreter reads. */
export interface ContainerCommand {
  readonly command?: readonly string[] | undefined;
  readonly args?: readonly string[] | undefined;
  /** Plain `value` env vars, for `$(VAR)` in command/args (as the kubelet expands) and `$VAR` in scripts. */
  readonly env?: Readonly<Record<string, string>> | undefined;
  /** The pod's hostname: `$HOSTNAME` in scripts, as the runtime sets it. */
  readonly hostname?: string | undefined;
}

/** A program that runs until it is stopped and writes nothing. */
export const RUNS_UNTIL_STOPPED: ContainerProgram = { output: [], exitAfter: undefined, exitCode: 0 };

const SHELLS = new Set(["sh", "bash", "ash", "dash", "zsh", "ksh"]);
const SUFFIX_SECONDS: Record<string, number> = { "": 1, s: 1, m: 60, h: 3600, d: 86400 };

/** Where the interpreter is: the clock, what was written, the last status, and whether the container ended. */
interface Run {
  clock: number;
  readonly output: OutputLine[];
  status: number;
  ended: "exit" | "forever" | undefined;
  /** Set for `kubectl exec`: what the command reads on stdin; unknown programs then fail instead of running forever. */
  readonly exec?: { readonly stdin: string };
}

/** Interprets a container's command; anything it does not know runs until stopped. */
export function interpret(container: ContainerCommand): ContainerProgram {
  const declared = container.env ?? {};
  const argv = [...(container.command ?? []), ...(container.args ?? [])].map((word) => expandKubeletVars(word, declared));
  if (argv.length === 0) return RUNS_UNTIL_STOPPED;
  const run: Run = { clock: 0, output: [], status: 0, ended: undefined };
  execute(argv, run, { ...(container.hostname ? { HOSTNAME: container.hostname } : {}), ...declared }, true);
  if (run.ended === "forever") return { output: run.output, exitAfter: undefined, exitCode: 0 };
  return { output: run.output, exitAfter: run.clock, exitCode: run.status };
}

/** What an exec'd command does: its lines and exit code; `exitAfter` undefined when it runs until the caller hangs up (`sleep infinity`). */
export interface ExecResult {
  readonly output: readonly OutputLine[];
  readonly exitAfter: number | undefined;
  readonly exitCode: number;
}

/**
 * Interprets a command run by `kubectl exec` in a container's context (its env and
 * hostname), given what it reads on stdin. Unlike a container's own command, a program
 * the interpreter does not know fails at once (exit 127, a message on stderr saying why),
 * since nothing real runs on the sim; `cat` copies stdin, `sh` without `-c` runs stdin.
 */
export function interpretExec(argv: readonly string[], container: Pick<ContainerCommand, "env" | "hostname">, stdin: string): ExecResult {
  const run: Run = { clock: 0, output: [], status: 0, ended: undefined, exec: { stdin } };
  const env = { ...(container.hostname ? { HOSTNAME: container.hostname } : {}), ...(container.env ?? {}) };
  if (argv.length > 0) execute(argv, run, env, true);
  return { output: run.output, exitAfter: run.ended === "forever" ? undefined : run.clock, exitCode: run.status };
}

/** Whether an exec'd command reads stdin to its end before it writes anything (`cat`, `sh` reading a script). */
export function readsStdin(argv: readonly string[]): boolean {
  const [first = "", ...rest] = argv;
  const name = first.slice(first.lastIndexOf("/") + 1);
  if (name === "exec") return readsStdin(rest);
  if (name === "cat") return rest.length === 0 || rest.includes("-");
  return SHELLS.has(name) && !rest.some((arg) => /^-[a-z]*c[a-z]*$/.test(arg));
}

/** The `sim.edgeloop.dev/run-seconds` and `exit-code` annotations override what the command would do. */
export function withOverrides(program: ContainerProgram, overrides: { readonly runSeconds?: number | undefined; readonly exitCode?: number | undefined }): ContainerProgram {
  const exitAfter = overrides.runSeconds ?? program.exitAfter;
  return {
    output: exitAfter === undefined ? program.output : program.output.filter((line) => line.at <= exitAfter),
    exitAfter,
    exitCode: overrides.exitCode ?? program.exitCode,
  };
}

/** `$(VAR)` in command and args, as the kubelet expands them from the container's env; `$$(VAR)` escapes. */
function expandKubeletVars(word: string, env: Readonly<Record<string, string>>): string {
  return word.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (match: string, name: string | undefined) => {
    if (match === "$$") return "$";
    return name !== undefined && name in env ? (env[name] ?? "") : match;
  });
}

/** Runs one simple command; `main` when it is the container's own process (its `exit` ends the container). */
function execute(argv: readonly string[], run: Run, env: Readonly<Record<string, string>>, main: boolean, streams: Streams = CONSOLE): void {
  const [first = "", ...rest] = argv;
  const name = first.slice(first.lastIndexOf("/") + 1);
  const write = (stream: OutputLine["stream"], text: string): void => {
    const to = streams[stream];
    if (to !== "away") run.output.push({ at: run.clock, stream: to, text });
  };
  if (name === "exec") return rest.length > 0 ? execute(rest, run, env, main, streams) : undefined;
  if (name === "true" || name === ":") return void (run.status = 0);
  if (name === "false") return void (run.status = 1);
  if (name === "echo") return echo(rest, run, write);
  if (name === "sleep") return sleep(rest, run, write);
  if (name === "exit") return exit(rest, run, write, main);
  if (SHELLS.has(name)) return shell(rest, run, env, streams);
  if (run.exec) return execOnly(name, rest, run, env, write);
  run.ended = "forever";
}

/**
 * Programs only `kubectl exec` meets: `cat` of stdin, `hostname`, `env` and `printenv`
 * of the container's context; `tar` (what `kubectl cp` runs) and anything else fail saying why.
 */
function execOnly(name: string, args: readonly string[], run: Run, env: Readonly<Record<string, string>>, write: (stream: OutputLine["stream"], text: string) => void): void {
  run.status = 0;
  if (name === "cat" && (args.length === 0 || args.every((arg) => arg === "-"))) return run.exec?.stdin ? write("stdout", run.exec.stdin) : undefined;
  if (name === "hostname" && args.length === 0) return write("stdout", `${env.HOSTNAME ?? ""}\n`);
  if ((name === "env" || name === "printenv") && args.length === 0) return write("stdout", Object.entries(env).map(([key, value]) => `${key}=${value}\n`).join(""));
  if (name === "printenv") {
    const values = args.filter((key) => key in env).map((key) => `${env[key] ?? ""}\n`);
    if (values.length > 0) write("stdout", values.join(""));
    return void (run.status = values.length === args.length ? 0 : 1);
  }
  if (name === "tar") {
    write("stderr", "tar: the edgeloop sim runs no real containers: they have no file system, so kubectl cp cannot copy files to or from them\n");
    return void (run.status = 2);
  }
  write("stderr", `sh: ${name}: not found (the edgeloop sim runs no real programs; exec runs sh scripts of echo, true, false, exit, sleep, cat, hostname, env and printenv)\n`);
  run.status = 127;
}

function echo(args: readonly string[], run: Run, write: (stream: OutputLine["stream"], text: string) => void): void {
  let words = args;
  let newline = true;
  while (words[0] !== undefined && /^-[neE]+$/.test(words[0])) {
    if (words[0].includes("n")) newline = false;
    words = words.slice(1);
  }
  write("stdout", `${words.join(" ")}${newline ? "\n" : ""}`);
  run.status = 0;
}

/** `sleep N[smhd] ...` (summed, as coreutils and busybox do), `sleep infinity`. */
function sleep(args: readonly string[], run: Run, write: (stream: OutputLine["stream"], text: string) => void): void {
  if (args.length === 0) {
    write("stderr", "sleep: missing operand\n");
    return void (run.status = 1);
  }
  let total = 0;
  for (const arg of args) {
    if (arg === "infinity" || arg === "inf") return void (run.ended = "forever");
    const match = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(arg);
    if (!match) {
      write("stderr", `sleep: invalid time interval '${arg}'\n`);
      return void (run.status = 1);
    }
    total += Number(match[1]) * (SUFFIX_SECONDS[match[2] ?? ""] ?? 1);
  }
  run.clock += total;
  run.status = 0;
}

function exit(args: readonly string[], run: Run, write: (stream: OutputLine["stream"], text: string) => void, main: boolean): void {
  const arg = args[0];
  if (arg !== undefined && !/^-?\d+$/.test(arg)) {
    write("stderr", `sh: exit: Illegal number: ${arg}\n`);
    run.status = 2;
  } else if (arg !== undefined) {
    run.status = ((Number(arg) % 256) + 256) % 256;
  }
  if (main) run.ended = "exit";
}

/** `sh [-flags] -c SCRIPT`; a shell without a script (reading stdin, or a script file) runs until stopped. */
function shell(args: readonly string[], run: Run, env: Readonly<Record<string, string>>, streams: Streams): void {
  let errexit = false;
  let script: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (!/^-[a-z]+$/.test(arg)) break;
    if (arg.includes("e")) errexit = true;
    if (arg.includes("c")) {
      script = args[i + 1];
      break;
    }
  }
  script ??= run.exec?.stdin;
  if (script === undefined) return void (run.ended = "forever");
  const statements = parseScript(script);
  // `kubectl cp --retries` pipes tar into tail: still tar, so still tar's reason.
  if (statements === undefined && run.exec && /^\s*tar\s/.test(script)) return execOnly("tar", [], run, env, (stream, text) => run.output.push({ at: run.clock, stream, text }));
  if (statements === undefined && run.exec) {
    run.output.push({ at: run.clock, stream: "stderr", text: "sh: the edgeloop sim's interpreter runs only simple commands joined by ; && || (no pipes, subshells, substitutions, loops or input redirections)\n" });
    return void (run.status = 2);
  }
  if (statements === undefined) return void (run.ended = "forever");
  runScript(statements, run, env, errexit, streams);
}

/** A simple command and how it joins the one before it. */
interface Statement {
  readonly join: ";" | "&&" | "||";
  readonly words: readonly Word[];
  /** `>&2`, `2>&1`, `>/dev/null`, `2>file`, in the order written. */
  readonly redirects: readonly Redirect[];
}

/** A redirection of stdout (1) or stderr (2): to the other stream, or away (a file, /dev/null). */
interface Redirect {
  readonly fd: 1 | 2;
  readonly to: "&1" | "&2" | "away";
}

/** Where a command's stdout and stderr end up: the container's streams, or nowhere the log shows. */
type Streams = Readonly<Record<OutputLine["stream"], OutputLine["stream"] | "away">>;

const CONSOLE: Streams = { stdout: "stdout", stderr: "stderr" };

/** A piece of a word: a run of unquoted or double-quoted text (expanded on its own), or literal text. */
interface Piece {
  text: string;
  readonly expand: boolean;
  readonly unquoted?: boolean;
}

/** A word as written: its pieces (quoting decides variable expansion). */
type Word = readonly Piece[];

function runScript(statements: readonly Statement[], run: Run, env: Readonly<Record<string, string>>, errexit: boolean, streams: Streams): void {
  for (const statement of statements) {
    if (run.ended) return;
    if (statement.join === "&&" && run.status !== 0) continue;
    if (statement.join === "||" && run.status === 0) continue;
    const argv = statement.words.map((word) => wordText(word, env));
    if (argv.length === 0) continue;
    execute(argv, run, env, true, redirected(streams, statement.redirects));
    if (errexit && run.status !== 0 && !run.ended) run.ended = "exit";
  }
}

/** The streams after a command's redirections, applied left to right as sh does. */
function redirected(streams: Streams, redirects: readonly Redirect[]): Streams {
  let out = streams;
  for (const r of redirects) {
    const to = r.to === "&1" ? out.stdout : r.to === "&2" ? out.stderr : "away";
    out = r.fd === 1 ? { ...out, stdout: to } : { ...out, stderr: to };
  }
  return out;
}

/** A word's text: runs of unquoted or double-quoted text expand variables, escaped and single-quoted text does not. */
function wordText(word: Word, env: Readonly<Record<string, string>>): string {
  return word.map((piece) => (piece.expand ? expandShellVars(piece.text, env) : piece.text)).join("");
}

/** `$VAR` and `${VAR}` from the container's env; unset variables are empty, as in sh. */
function expandShellVars(text: string, env: Readonly<Record<string, string>>): string {
  return text.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_match: string, braced: string | undefined, bare: string | undefined) => env[braced ?? bare ?? ""] ?? "");
}

/**
 * Splits a script into simple commands. Undefined for anything beyond words, quotes,
 * output redirections and `;` `&&` `||` newlines (pipes, input redirection, background
 * jobs, subshells, command substitution): such a script runs until stopped, as do
 * control flow keywords (`while`, `if`), which are no command the interpreter knows.
 */
export function parseScript(script: string): Statement[] | undefined {
  const statements: Statement[] = [];
  let words: Word[] = [];
  let redirects: Redirect[] = [];
  let word: Piece[] | undefined;
  const unquoted = (c: string): void => {
    const last = word?.at(-1);
    if (last?.unquoted) last.text += c;
    else (word ??= []).push({ text: c, expand: true, unquoted: true });
  };
  let join: Statement["join"] = ";";
  const endWord = (): void => {
    if (word) words.push(word);
    word = undefined;
  };
  const endStatement = (next: Statement["join"]): void => {
    endWord();
    if (words.length > 0) statements.push({ join, words, redirects });
    words = [];
    redirects = [];
    join = next;
  };
  for (let i = 0; i < script.length; i++) {
    const c = script[i] ?? "";
    if (c === "'") {
      const close = script.indexOf("'", i + 1);
      if (close < 0) return undefined;
      (word ??= []).push({ text: script.slice(i + 1, close), expand: false });
      i = close;
    } else if (c === '"') {
      const quoted = readDoubleQuoted(script, i + 1);
      if (!quoted) return undefined;
      (word ??= []).push(...quoted.pieces);
      i = quoted.end;
    } else if (c === "$" && script[i + 1] === "{") {
      const close = script.indexOf("}", i);
      if (close < 0) return undefined;
      unquoted(script.slice(i, close + 1));
      i = close;
    } else if (c === "\\") {
      (word ??= []).push({ text: script[i + 1] ?? "", expand: false });
      i += 1;
    } else if (c === " " || c === "\t") {
      endWord();
    } else if (c === ";" || c === "\n") {
      endStatement(";");
    } else if ((c === "&" || c === "|") && script[i + 1] === c) {
      endStatement(c === "&" ? "&&" : "||");
      i += 1;
    } else if (c === ">") {
      // `2>`: a lone unquoted digit right before `>` is the descriptor, not a word.
      const digit = word?.length === 1 && word[0]?.unquoted && (word[0].text === "1" || word[0].text === "2") ? word[0].text : undefined;
      if (digit) word = undefined;
      endWord();
      const redirect = readRedirect(script, i + 1);
      if (!redirect) return undefined;
      redirects.push({ fd: digit === "2" ? 2 : 1, to: redirect.to });
      i = redirect.end;
    } else if (c === "#" && !word) {
      const eol = script.indexOf("\n", i);
      i = eol < 0 ? script.length : eol - 1;
    } else if ("|&<>()`{}".includes(c) || (c === "$" && script[i + 1] === "(")) {
      return undefined;
    } else {
      unquoted(c);
    }
  }
  endStatement(";");
  return statements;
}

/** After `>`: `>` (append), then `&1` / `&2` or a file name; where it points and the index of its last character. */
function readRedirect(script: string, from: number): { to: Redirect["to"]; end: number } | undefined {
  let i = script[from] === ">" ? from + 1 : from;
  if (script[i] === "&") {
    const fd = script[i + 1];
    return fd === "1" || fd === "2" ? { to: `&${fd}`, end: i + 1 } : undefined;
  }
  while (script[i] === " " || script[i] === "\t") i += 1;
  const target = /^[A-Za-z0-9_./-]+/.exec(script.slice(i))?.[0];
  return target ? { to: "away", end: i + target.length - 1 } : undefined;
}

/** The pieces of a double-quoted string up to its closing quote: text expands, escaped characters do not. */
function readDoubleQuoted(script: string, from: number): { pieces: Piece[]; end: number } | undefined {
  const pieces: Piece[] = [];
  for (let i = from; i < script.length; i++) {
    const c = script[i] ?? "";
    if (c === '"') return { pieces, end: i };
    if (c === "`" || (c === "$" && script[i + 1] === "(")) return undefined;
    if (c === "\\" && '"\\$`'.includes(script[i + 1] ?? "")) {
      pieces.push({ text: script[i + 1] ?? "", expand: false });
      i += 1;
    } else {
      const last = pieces.at(-1);
      if (last?.expand) last.text += c;
      else pieces.push({ text: c, expand: true });
    }
  }
  return undefined;
}
