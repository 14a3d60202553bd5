import assert from "node:assert/strict";
import { test } from "node:test";
import { interpretExec, readsStdin, type ExecResult } from "./container-command.ts";

const exec = (argv: string[], stdin = "", env: Record<string, string> = {}): ExecResult => interpretExec(argv, { env, hostname: "web-0" }, stdin);
const stream = (result: ExecResult, name: "stdout" | "stderr"): string =>
  result.output
    .filter((line) => line.stream === name)
    .map((line) => line.text)
    .join("");

test("exec: a script's stdout, stderr and exit code, in the container's env and hostname", () => {
  const result = exec(["sh", "-c", 'echo hi $GREETING; echo "$HOSTNAME" >&2; exit 3'], "", { GREETING: "there" });
  assert.equal(stream(result, "stdout"), "hi there\n");
  assert.equal(stream(result, "stderr"), "web-0\n");
  assert.equal(result.exitCode, 3);
  assert.equal(result.exitAfter, 0);
});

test("exec: cat copies stdin; sh without -c runs stdin as its script", () => {
  assert.equal(stream(exec(["cat"], "hello\n"), "stdout"), "hello\n");
  const script = exec(["sh"], "echo from stdin\nexit 4\n");
  assert.equal(stream(script, "stdout"), "from stdin\n");
  assert.equal(script.exitCode, 4);
  assert.ok(readsStdin(["cat"]) && readsStdin(["/bin/sh"]) && readsStdin(["exec", "cat", "-"]));
  assert.ok(!readsStdin(["sh", "-c", "cat"]) && !readsStdin(["cat", "/etc/hosts"]) && !readsStdin(["echo"]));
});

test("exec: an unknown program and tar (kubectl cp) fail at once, saying why; a script beyond the interpreter too", () => {
  const ls = exec(["ls", "/"]);
  assert.equal(ls.exitCode, 127);
  assert.match(stream(ls, "stderr"), /^sh: ls: not found \(the edgeloop sim runs no real programs/);
  const tar = exec(["tar", "cf", "-", "/etc/hosts"]);
  assert.equal(tar.exitCode, 2);
  assert.match(stream(tar, "stderr"), /kubectl cp cannot copy files/);
  const pipe = exec(["sh", "-c", "echo a | wc -l"]);
  assert.equal(pipe.exitCode, 2);
  assert.match(stream(pipe, "stderr"), /no pipes/);
});

test("exec: sleeps take the script's time; sleep infinity runs until the caller hangs up", () => {
  const slow = exec(["sh", "-c", "echo a; sleep 2; echo b"]);
  assert.deepEqual(
    slow.output.map((line) => [line.at, line.text]),
    [
      [0, "a\n"],
      [2, "b\n"],
    ],
  );
  assert.equal(slow.exitAfter, 2);
  assert.equal(exec(["sleep", "infinity"]).exitAfter, undefined);
});

test("exec: hostname, env and printenv read the container's context", () => {
  assert.equal(stream(exec(["hostname"]), "stdout"), "web-0\n");
  assert.equal(stream(exec(["env"], "", { A: "1" }), "stdout"), "HOSTNAME=web-0\nA=1\n");
  assert.equal(stream(exec(["printenv", "A"], "", { A: "1" }), "stdout"), "1\n");
  assert.equal(exec(["printenv", "MISSING"]).exitCode, 1);
});

test("exec: kubectl cp --retries pipes tar into tail, and still gets tar's reason", () => {
  const result = exec(["sh", "-c", "tar cf - '/etc/hosts' | tail -c+1"]);
  assert.equal(result.exitCode, 2);
  assert.match(stream(result, "stderr"), /kubectl cp cannot copy files/);
});
