import assert from "node:assert/strict";
import { test } from "node:test";
import { matchesSelector, parseLabelSelector } from "./label-selector.ts";

test("label selector strings read as the API server reads them", () => {
  const labels = { app: "web", tier: "front" };
  const holds = (selector: string, l: Record<string, string> | undefined = labels): boolean => matchesSelector(parseLabelSelector(selector), l);
  assert.ok(holds("app=web"));
  assert.ok(holds("app==web,tier"));
  assert.ok(holds("app!=db"));
  assert.ok(holds("app!=db", undefined), "!= holds where the label is absent");
  assert.ok(holds("tier in (front, back),!legacy"));
  assert.ok(!holds("tier notin (front)"));
  assert.ok(!holds("app=web,legacy"));
  assert.ok(holds(""), "an empty selector selects everything");
});
