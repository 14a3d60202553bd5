import assert from "node:assert/strict";
import { test } from "node:test";
import bindings from "./bindings.ts";
import { gangSettings } from "./settings.ts";

test("the gang settings: defaults, strings as wrangler passes them, and errors naming the variable", () => {
  assert.deepEqual(gangSettings({}), { arrivalTimeoutSeconds: 300, defaultDurationSeconds: 3600, arrivalWindowSeconds: 30, schedulerName: "fluxnetes", bindCheckSeconds: 10 });
  assert.deepEqual(gangSettings({ EDGELOOP_GANG_ARRIVAL_TIMEOUT_SECONDS: "5", EDGELOOP_GANG_DEFAULT_DURATION_SECONDS: "0" }), { arrivalTimeoutSeconds: 5, defaultDurationSeconds: 0, arrivalWindowSeconds: 30, schedulerName: "fluxnetes", bindCheckSeconds: 10 });
  assert.equal(gangSettings({ EDGELOOP_GANG_SCHEDULER_NAME: "gangs.example" }).schedulerName, "gangs.example");
  assert.throws(() => gangSettings({ EDGELOOP_GANG_SCHEDULER_NAME: "Not A Name" }), /EDGELOOP_GANG_SCHEDULER_NAME must be a DNS subdomain/);
  assert.throws(() => gangSettings({ EDGELOOP_GANG_ARRIVAL_TIMEOUT_SECONDS: "soon" }), /EDGELOOP_GANG_ARRIVAL_TIMEOUT_SECONDS must be a whole number of seconds/);
  assert.throws(() => gangSettings({ EDGELOOP_GANG_DEFAULT_DURATION_SECONDS: "-1" }), /EDGELOOP_GANG_DEFAULT_DURATION_SECONDS must be 0 or more/);
  assert.throws(() => gangSettings({ EDGELOOP_GANG_DEFAULT_DURATION_SECONDS: "1.5" }), /whole number/);
  assert.equal(gangSettings({ EDGELOOP_GANG_BIND_CHECK_SECONDS: "2" }).bindCheckSeconds, 2);
  assert.throws(() => gangSettings({ EDGELOOP_GANG_BIND_CHECK_SECONDS: "0" }), /EDGELOOP_GANG_BIND_CHECK_SECONDS must be 1 or more/);
});

test("the variables the family deploys (bindings.ts) are the values its parse falls back to", () => {
  assert.deepEqual(bindings.vars, { EDGELOOP_GANG_ARRIVAL_TIMEOUT_SECONDS: "300", EDGELOOP_GANG_DEFAULT_DURATION_SECONDS: "3600", EDGELOOP_GANG_ARRIVAL_WINDOW_SECONDS: "30", EDGELOOP_GANG_SCHEDULER_NAME: "fluxnetes", EDGELOOP_GANG_BIND_CHECK_SECONDS: "10" });
  assert.deepEqual(gangSettings(bindings.vars ?? {}), gangSettings({}));
});
