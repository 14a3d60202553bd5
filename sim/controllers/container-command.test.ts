import assert from "node:assert/strict";
import { test } from "node:test";
import { interpret, parseScript, RUNS_UNTIL_STOPPED, withOverrides, type ContainerProgram } from "./container-command.ts";

const run = (command?: string[], args?: string[], env?: Record<string, string>): ContainerProgram => interpret({ command, args, env });
const text = (program: ContainerProgram): string => program.output.map((line) => line.text).join("");

test("no command and no args: the image's own entrypoint, which runs until stopped", () => {
  assert.deepEqual(run(), RUNS_UNTIL_STOPPED);
  assert.deepEqual(run([], []), RUNS_UNTIL_STOPPED);
});

test("sleep N runs N seconds and exits 0; suffixes and several operands add up; infinity never ends", () => {
  assert.deepEqual(run(["sleep", "5"]), { output: [], exitAfter: 5, exitCode: 0 });
  assert.equal(run(["/bin/sleep", "0.5"]).exitAfter, 0.5);
  assert.equal(run(["sleep", "1m", "30s"]).exitAfter, 90);
  assert.equal(run(["sleep"], ["2h"]).exitAfter, 7200);
  assert.equal(run(["sleep", "infinity"]).exitAfter, undefined);
  const bad = run(["sleep", "soon"]);
  assert.equal(bad.exitCode, 1);
  assert.equal(bad.exitAfter, 0);
  assert.match(text(bad), /invalid time interval 'soon'/);
  assert.equal(bad.output[0]?.stream, "stderr");
});

test("echo writes its words and exits 0 at once; true, false and exit N", () => {
  assert.deepEqual(run(["echo", "potato"]), { output: [{ at: 0, stream: "stdout", text: "potato\n" }], exitAfter: 0, exitCode: 0 });
  assert.equal(text(run(["echo"], ["hello", "world"])), "hello world\n");
  assert.equal(text(run(["echo", "-n", "no newline"])), "no newline");
  assert.deepEqual(run(["true"]), { output: [], exitAfter: 0, exitCode: 0 });
  assert.deepEqual(run(["false"]), { output: [], exitAfter: 0, exitCode: 1 });
  assert.equal(run(["exit", "0"]).exitCode, 0);
  assert.equal(run(["exit", "3"]).exitCode, 3);
  assert.equal(run(["exit", "257"]).exitCode, 1, "exit codes are modulo 256");
});

test("args alone are the command (an image without an entrypoint, as `kubectl run --image=busybox -- echo hi`)", () => {
  assert.equal(text(run(undefined, ["echo", "hi"])), "hi\n");
});

test("sh -c scripts: echo parts, sleeps in the script's time, exit N", () => {
  const program = run(["sh", "-c", "echo hi; sleep 2; echo bye; exit 3"]);
  assert.deepEqual(program.output, [
    { at: 0, stream: "stdout", text: "hi\n" },
    { at: 2, stream: "stdout", text: "bye\n" },
  ]);
  assert.equal(program.exitAfter, 2);
  assert.equal(program.exitCode, 3);
  assert.deepEqual(run(["/bin/sh", "-c", "sleep 2; exit 3"]), { output: [], exitAfter: 2, exitCode: 3 });
  assert.deepEqual(run(["bash", "-c"], ["exit 7"]), { output: [], exitAfter: 0, exitCode: 7 });
  assert.equal(run(["sh", "-c", "echo a\nfalse"]).exitCode, 1, "without exit: the status of the last command");
  assert.equal(run(["sh", "-c", "exit 1; echo never"]).output.length, 0, "nothing runs after exit");
});

test("&& and || follow the status; -e stops at the first failure", () => {
  assert.equal(text(run(["sh", "-c", "false && echo no || echo yes"])), "yes\n");
  assert.equal(text(run(["sh", "-c", "true && echo both"])), "both\n");
  const errexit = run(["sh", "-ec", "echo one; false; echo two"]);
  assert.equal(text(errexit), "one\n");
  assert.equal(errexit.exitCode, 1);
});

test("quotes, escapes, comments and variables from the container's env", () => {
  assert.equal(text(run(["sh", "-c", `echo 'single $X' "double $X" \\$X # comment`], undefined, { X: "x" })), "single $X double x $X\n");
  assert.equal(text(run(["sh", "-c", 'echo "${X}y" "$UNSET"end'], undefined, { X: "x" })), "xy end\n");
  assert.equal(text(run(["echo", "$(GREETING) world"], undefined, { GREETING: "hello" })), "hello world\n", "the kubelet expands $(VAR) in command and args");
  assert.equal(text(run(["echo", "$$(GREETING)"], undefined, { GREETING: "hello" })), "$(GREETING)\n");
  assert.equal(text(interpret({ command: ["sh", "-c", "echo $HOSTNAME"], hostname: "web-0" })), "web-0\n", "the runtime sets HOSTNAME");
});

test("anything else runs until stopped, after what came before it", () => {
  assert.deepEqual(run(["nginx", "-g", "daemon off;"]), RUNS_UNTIL_STOPPED);
  const server = run(["sh", "-c", "echo starting; python serve.py"]);
  assert.equal(text(server), "starting\n");
  assert.equal(server.exitAfter, undefined);
  assert.equal(run(["sh", "-c", "while true; do sleep 1; done"]).exitAfter, undefined);
  assert.equal(run(["sh", "-c", "echo hi | tee /log"]).exitAfter, undefined, "pipes are beyond the interpreter");
  assert.equal(run(["sh", "-c", "echo $(date)"]).exitAfter, undefined, "command substitution too");
  assert.equal(run(["sh", "script.sh"]).exitAfter, undefined, "a script file is unknown");
  assert.equal(run(["sh"]).exitAfter, undefined, "a shell reading stdin waits");
});

test("output redirections: to the other stream, or away from the log", () => {
  const streams = (program: ContainerProgram): string[] => program.output.map((line) => `${line.stream}:${line.text.trim()}`);
  assert.deepEqual(streams(run(["sh", "-c", "echo out; echo err >&2; echo gone > /tmp/file; echo quiet 2>/dev/null; exit 0"])), ["stdout:out", "stderr:err", "stdout:quiet"]);
  assert.deepEqual(streams(run(["sh", "-c", "sleep x 2>&1; sleep y 2>/dev/null; echo a 1>&2"])), ["stdout:sleep: invalid time interval 'x'", "stderr:a"]);
  assert.deepEqual(streams(run(["sh", "-c", "echo both >/dev/null 2>&1; echo appended >> log"])), []);
  assert.deepEqual(streams(run(["sh", "-c", "echo 2 > out; echo 2>err ok"])), ["stdout:ok"], "`2 >` is an argument then a redirection; `2>` a descriptor");
  assert.equal(run(["sh", "-c", "echo x >&3"]).exitAfter, undefined, "other descriptors are beyond the interpreter");
});

test("parseScript refuses what it cannot follow", () => {
  assert.equal(parseScript("echo 'open"), undefined);
  assert.equal(parseScript("cat < in"), undefined);
  assert.equal(parseScript("(sleep 1)"), undefined);
  assert.equal(parseScript("sleep 1 &"), undefined);
  assert.equal(parseScript("echo a;; echo b")?.length, 2);
});

test("run-seconds and exit-code annotations override the command", () => {
  const forever = run(["sleep", "infinity"]);
  assert.deepEqual(withOverrides(forever, { runSeconds: 2, exitCode: 4 }), { output: [], exitAfter: 2, exitCode: 4 });
  assert.deepEqual(withOverrides(run(["echo", "hi"]), { exitCode: 3 }), { output: [{ at: 0, stream: "stdout", text: "hi\n" }], exitAfter: 0, exitCode: 3 });
  const cut = withOverrides(run(["sh", "-c", "echo a; sleep 5; echo b"]), { runSeconds: 1 });
  assert.equal(text(cut), "a\n", "what it would have written after the override's exit is never written");
  assert.equal(cut.exitAfter, 1);
  assert.deepEqual(withOverrides(forever, {}), forever);
});
