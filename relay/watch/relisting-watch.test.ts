import assert from "node:assert/strict";
import { test } from "node:test";
import { watchTimeoutSeconds } from "./relisting-watch.ts";

test("a watch's server-side timeout spreads between one and two silence bounds, as client-go's does", () => {
  assert.equal(watchTimeoutSeconds(300, 0), 300);
  assert.equal(watchTimeoutSeconds(300, 0.999), 600);
  assert.equal(watchTimeoutSeconds(0.2, 0), 1, "at least a second");
});
