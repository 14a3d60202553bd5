import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "../contract.ts";
import { paginate } from "./paging.ts";

const keys = ["b/2", "a/1", "b/1", "a/3", "c/1"];
const same = (k: string): string => k;

test("without limit or continue the list is whole, in store order", () => {
  const page = paginate(keys, same, { limit: undefined, continueToken: null }, 40, 0);
  assert.deepEqual(page, { items: keys, resourceVersion: "40", continueToken: undefined, remaining: undefined });
});

test("pages come in key order, each continuing after the last key, all at the first page's resourceVersion", () => {
  const first = paginate(keys, same, { limit: 2, continueToken: null }, 40, 0);
  assert.deepEqual(first.items, ["a/1", "a/3"]);
  assert.equal(first.remaining, 3);
  const later = [...keys, "a/2", "d/1"]; // a/2 sorts before the token: not served; d/1 after: served
  const second = paginate(later, same, { limit: 2, continueToken: first.continueToken ?? null }, 45, 0);
  assert.deepEqual(second.items, ["b/1", "b/2"]);
  assert.equal(second.resourceVersion, "40");
  const third = paginate(later, same, { limit: 2, continueToken: second.continueToken ?? null }, 46, 0);
  assert.deepEqual(third.items, ["c/1", "d/1"]);
  assert.equal(third.continueToken, undefined, "the last page has no continue token");
});

test("a token older than the event history is 410 Expired; a garbled one 400", () => {
  const first = paginate(keys, same, { limit: 1, continueToken: null }, 40, 0);
  assert.throws(() => paginate(keys, same, { limit: 1, continueToken: first.continueToken ?? null }, 90, 50), (e: unknown) => e instanceof ApiError && e.code === 410 && e.reason === "Expired");
  assert.throws(() => paginate(keys, same, { limit: 1, continueToken: "!!" }, 90, 0), (e: unknown) => e instanceof ApiError && e.code === 400);
});
