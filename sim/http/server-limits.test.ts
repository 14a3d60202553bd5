import assert from "node:assert/strict";
import { test } from "node:test";
import { SimCluster } from "../api/sim-cluster.ts";
import { slowloris } from "../../test/support/slowloris.ts";
import { SIM_CONNECTION_LIMITS, startApiServer } from "./server.ts";

test("the sim closes a slowloris (headers or body a byte at a time) within its limits (issue 28, finding 7e)", async (t) => {
  const server = await startApiServer(new SimCluster(), { connections: { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300, checkIntervalMs: 100, maxConnections: 8 } });
  t.after(() => server.close());
  const headers = await slowloris(server.port, "headers", 50, 3_000);
  assert.ok(headers.heldMs !== undefined && headers.heldMs < 1_000, `headers trickled: held ${headers.heldMs} ms`);
  const body = await slowloris(server.port, "body", 50, 3_000, "/api/v1/namespaces");
  assert.ok(body.heldMs !== undefined && body.heldMs < 1_500, `body trickled: held ${body.heldMs} ms`);
  assert.equal(body.status, 408);
});

test("the sim keeps idle connections a minute (its clients' watches reconnect less) and caps them at 16,384", () => {
  assert.equal(SIM_CONNECTION_LIMITS.keepAliveTimeoutMs, 60_000);
  assert.equal(SIM_CONNECTION_LIMITS.maxConnections, 16_384);
});
