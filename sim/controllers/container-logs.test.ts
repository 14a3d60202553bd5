import assert from "node:assert/strict";
import { test } from "node:test";
import { ContainerLogs, containerLogsOf, type LogEntry } from "./container-logs.ts";

const line = (time: number, text: string): LogEntry => ({ time, stream: "stdout", text });
const texts = (entries: readonly LogEntry[] | undefined): string[] => (entries ?? []).map((e) => e.text);

test("a line is visible once its time has come; the next one's time is known", () => {
  const logs = new ContainerLogs();
  logs.start("uid", "c", [line(2000, "later\n"), line(1000, "first\n")]);
  assert.deepEqual(texts(logs.read("uid", "c", false, 1500)?.entries), ["first\n"]);
  assert.equal(logs.read("uid", "c", false, 1500)?.nextAt, 2000);
  assert.deepEqual(texts(logs.read("uid", "c", false, 2000)?.entries), ["first\n", "later\n"]);
  assert.equal(logs.read("uid", "c", false, 2000)?.ended, false, "running until the kubelet says it stopped");
});

test("a stopped instance drops what it would have written later; a restart keeps it as the previous one", () => {
  const logs = new ContainerLogs();
  logs.start("uid", "c", [line(1000, "one\n"), line(5000, "never\n")]);
  logs.end("uid", "c", 3000);
  assert.deepEqual(logs.read("uid", "c", false, 9000), { entries: [line(1000, "one\n")], ended: true, nextAt: undefined });
  logs.start("uid", "c", [line(10_000, "two\n")]);
  assert.deepEqual(texts(logs.read("uid", "c", true, 10_000)?.entries), ["one\n"]);
  assert.deepEqual(texts(logs.read("uid", "c", false, 10_000)?.entries), ["two\n"]);
  logs.start("uid", "c", []);
  assert.deepEqual(texts(logs.read("uid", "c", true, 10_000)?.entries), ["two\n"], "only one previous instance is kept");
});

test("nothing for a container never started; forget drops a pod's logs", () => {
  const logs = new ContainerLogs();
  assert.equal(logs.read("uid", "c", false, 0), undefined);
  logs.start("uid", "c", [line(0, "x\n")]);
  assert.equal(logs.read("uid", "c", true, 0), undefined, "no previous instance yet");
  logs.forget("uid");
  assert.equal(logs.read("uid", "c", false, 0), undefined);
});

test("each instance is bounded in size: the oldest lines go first", () => {
  const logs = new ContainerLogs(10);
  logs.start("uid", "c", [line(1, "aaaa\n"), line(2, "bbbb\n"), line(3, "cccc\n")]);
  assert.deepEqual(texts(logs.read("uid", "c", false, 10)?.entries), ["bbbb\n", "cccc\n"]);
});

test("followers hear restarts, stops and the pod going away", () => {
  const logs = new ContainerLogs();
  logs.start("uid", "c", []);
  let heard = 0;
  const unsubscribe = logs.subscribe("uid", "c", () => void (heard += 1));
  logs.end("uid", "c", 5);
  logs.end("uid", "c", 6);
  assert.equal(heard, 1, "a second stop of the same instance is no news");
  logs.start("uid", "c", []);
  logs.forget("uid");
  assert.equal(heard, 3);
  unsubscribe();
});

test("one store per cluster object", () => {
  const a = {};
  assert.equal(containerLogsOf(a), containerLogsOf(a));
  assert.notEqual(containerLogsOf(a), containerLogsOf({}));
});
