import assert from "node:assert/strict";
import { test } from "node:test";
import { FailedBody, MAX_BODY_BYTES, parseBody, parseJson, ReplicasBody } from "./body.ts";

test("an empty or blank body reads as {}; bad JSON and oversized bodies are 400 naming body", () => {
  assert.deepEqual(parseJson(""), { ok: true, value: {} });
  assert.deepEqual(parseJson("  \n"), { ok: true, value: {} });
  assert.deepEqual(parseJson("{nope"), { ok: false, failure: { status: 400, message: "body: not valid JSON" } });
  const big = parseJson(`{"x":"${"a".repeat(MAX_BODY_BYTES)}"}`);
  assert.equal(big.ok, false);
  if (!big.ok) assert.match(big.failure.message, /^body: larger than/);
  const multibyte = parseJson(`{"x":"${"é".repeat(MAX_BODY_BYTES / 2 + 1)}"}`);
  assert.equal(multibyte.ok, false, "the bound is in bytes, not characters");
});

test("a replicas body: quantities as strings or numbers, groups optional, counts bounded", () => {
  const parsed = parseBody(JSON.stringify({ namespace: "ns", coordinator: "c", collectors: { replicas: 2, cpus: 1, memory: "1Gi" }, learners: { replicas: 1, gpus: "2", cpus: "500m" } }), {}, ReplicasBody);
  assert.ok(parsed.ok);
  if (!parsed.ok) return;
  assert.deepEqual(parsed.value.collectors, { replicas: 2, cpus: "1", gpus: 0, memory: "1Gi" });
  assert.deepEqual({ ...parsed.value.learners }, { replicas: 1, cpus: "500m", gpus: 2 });
  const bare = parseBody('{"namespace":"ns","coordinator":"c"}', {}, ReplicasBody);
  assert.ok(bare.ok && bare.value.collectors.replicas === 0 && bare.value.learners.replicas === 0);
  const nulls = parseBody('{"namespace":"ns","coordinator":"c","collectors":null,"learners":{"replicas":1,"cpus":"","gpus":null}}', {}, ReplicasBody);
  assert.ok(nulls.ok && nulls.value.learners.cpus === undefined && nulls.value.learners.gpus === 0);
});

test("every refused field is named by its path", () => {
  const cases: [unknown, RegExp][] = [
    [{}, /^namespace: /],
    [{ namespace: "Bad_NS", coordinator: "c" }, /^namespace: /],
    [{ namespace: "ns" }, /^coordinator: /],
    [{ namespace: "ns", coordinator: "c", collectors: { replicas: -1 } }, /^collectors\.replicas: /],
    [{ namespace: "ns", coordinator: "c", collectors: { replicas: 101 } }, /^collectors\.replicas: /],
    [{ namespace: "ns", coordinator: "c", collectors: { replicas: 1.5 } }, /^collectors\.replicas: /],
    [{ namespace: "ns", coordinator: "c", learners: { replicas: 1, cpus: "lots" } }, /^learners\.cpus: /],
    [{ namespace: "ns", coordinator: "c", learners: { replicas: 1, memory: -1 } }, /^learners\.memory: /],
    [{ namespace: "ns", coordinator: "c", learners: { replicas: 1, gpus: "1.5" } }, /^learners\.gpus: /],
    [{ namespace: "ns", coordinator: "c", learners: { replicas: 1, gpus: 100000 } }, /^learners\.gpus: /],
    [{ namespace: "ns", coordinator: "c", learners: "many" }, /^learners: /],
    [[1, 2], /^body: /],
    ["text", /^body: /],
  ];
  for (const [body, message] of cases) {
    const parsed = parseBody(JSON.stringify(body), {}, ReplicasBody);
    assert.equal(parsed.ok, false, JSON.stringify(body));
    if (!parsed.ok) {
      assert.equal(parsed.failure.status, 400);
      assert.match(parsed.failure.message, message, JSON.stringify(body));
    }
  }
  const failed = parseBody(JSON.stringify({ namespace: "ns", coordinator: "c", learners: ["ok", 3] }), {}, FailedBody);
  assert.ok(!failed.ok && /^learners\.1: /.test(failed.failure.message));
});

test("a query naming another namespace than the body is refused (the relay acts in the query's)", () => {
  const parsed = parseBody('{"namespace":"a","coordinator":"c"}', { namespace: "b" }, ReplicasBody);
  assert.ok(!parsed.ok && parsed.failure.status === 400 && /^namespace: /.test(parsed.failure.message));
  assert.ok(parseBody('{"namespace":"a","coordinator":"c"}', { namespace: "a" }, ReplicasBody).ok);
});
