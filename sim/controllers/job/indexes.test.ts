import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../../protocol/index.ts";
import { completionIndex, firstPendingIndexes, formatIndexes, INDEX_ANNOTATION, mergeIndexes, parseIndexes, validIndex } from "./indexes.ts";

const pod = (index?: string): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", ...(index === undefined ? {} : { annotations: { [INDEX_ANNOTATION]: index } }) } });

test("completedIndexes: runs of three or more as ranges, pairs as two numbers, as upstream prints them", () => {
  assert.equal(formatIndexes([]), "");
  assert.equal(formatIndexes([3]), "3");
  assert.equal(formatIndexes([0, 1]), "0,1");
  assert.equal(formatIndexes([0, 1, 2, 4, 6, 7, 9, 10, 11, 12]), "0-2,4,6,7,9-12");
});

test("parsing completedIndexes drops indexes at or past completions and reads its own output back", () => {
  assert.deepEqual(parseIndexes("0-2,4,6,7", 10), [0, 1, 2, 4, 6, 7]);
  assert.deepEqual(parseIndexes("0-2,4,6,7", 5), [0, 1, 2, 4]);
  assert.deepEqual(parseIndexes(undefined, 5), []);
  for (const indexes of [[0], [1, 2], [0, 1, 2, 5, 8, 9]]) assert.deepEqual(parseIndexes(formatIndexes(indexes), 10), indexes);
});

test("each index counts once: merging succeeded indexes is a sorted set", () => {
  assert.deepEqual(mergeIndexes([0, 2], [2, 1, 1]), [0, 1, 2]);
});

test("new pods take the lowest indexes neither succeeded nor active", () => {
  assert.deepEqual(firstPendingIndexes([0, 2], [1], 2, 6), [3, 4]);
  assert.deepEqual(firstPendingIndexes([], [], 5, 3), [0, 1, 2], "never past completions");
  assert.deepEqual(firstPendingIndexes([0, 1, 2], [], 1, 3), []);
});

test("a pod's index comes from its annotation; missing, malformed or out of range is no index", () => {
  assert.equal(completionIndex(pod("3")), 3);
  assert.equal(completionIndex(pod()), undefined);
  assert.equal(completionIndex(pod("-1")), undefined);
  assert.equal(completionIndex(pod("x")), undefined);
  assert.equal(validIndex(pod("3"), 3), false);
  assert.equal(validIndex(pod("2"), 3), true);
});
