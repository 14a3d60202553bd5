import assert from "node:assert/strict";
import { test } from "node:test";
import { formatEndpoints } from "./table.ts";

test("the Endpoints column as kube-apiserver prints it: ready ip:port pairs, three at most, then + N more...", () => {
  assert.equal(formatEndpoints({}), "<none>");
  assert.equal(formatEndpoints({ subsets: [{ notReadyAddresses: [{ ip: "10.0.0.9" }], ports: [{ port: 80 }] }] }), "<none>", "not-ready addresses are not listed");
  assert.equal(formatEndpoints({ subsets: [{ addresses: [{ ip: "10.0.0.1" }], ports: [{ port: 80 }, { port: 443 }] }] }), "10.0.0.1:80,10.0.0.1:443");
  assert.equal(formatEndpoints({ subsets: [{ addresses: [{ ip: "10.0.0.1" }, { ip: "10.0.0.2" }] }] }), "10.0.0.1,10.0.0.2", "a headless Service without ports");
  const four = { subsets: [{ addresses: ["1", "2", "3", "4"].map((n) => ({ ip: `10.0.0.${n}` })), ports: [{ port: 80 }] }] };
  assert.equal(formatEndpoints(four), "10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 1 more...");
  assert.equal(formatEndpoints({ subsets: [{ addresses: [{ ip: "fd00::1" }], ports: [{ port: 80 }] }] }), "[fd00::1]:80");
});
