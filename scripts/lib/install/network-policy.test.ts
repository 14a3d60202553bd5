import assert from "node:assert/strict";
import { test } from "node:test";
import { isCidr } from "./network-policy.ts";

test("CIDRs: IPv4 and IPv6 with a prefix in range; anything else is not one", () => {
  for (const good of ["10.0.0.0/8", "192.168.1.7/32", "0.0.0.0/0", "fd00::/64", "::1/128"]) assert.ok(isCidr(good), good);
  for (const bad of ["10.0.0.0", "10.0.0.0/33", "10.0.0/8", "fd00::/129", "10.0.0.0/8/1", "10.0.0.0/-1", "host/8", ""]) assert.ok(!isCidr(bad), bad);
});
