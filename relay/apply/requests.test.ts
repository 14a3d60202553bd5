import assert from "node:assert/strict";
import { test } from "node:test";
import { StatusError, type KubeObject } from "../../protocol/index.ts";
import { ActionRequests } from "./requests.ts";

const pod: KubeObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "a" } };

/** A client whose every POST is answered `error`. */
function refusing(error: StatusError): ConstructorParameters<typeof ActionRequests>[0] {
  return {
    path: async () => "/api/v1/namespaces/a/pods",
    request: async () => {
      throw error;
    },
  };
}

test("a create with ifAbsent answered AlreadyExists counts as applied; without it, or another 409, it fails", async () => {
  const exists = new StatusError(409, "AlreadyExists", 'pods "p" already exists');
  assert.equal(await new ActionRequests(refusing(exists), "test").send({ type: "create", object: pod, ifAbsent: true }), undefined);
  await assert.rejects(new ActionRequests(refusing(exists), "test").send({ type: "create", object: pod }), /already exists/);
  const conflict = new StatusError(409, "Conflict", "operation cannot be fulfilled");
  await assert.rejects(new ActionRequests(refusing(conflict), "test").send({ type: "create", object: pod, ifAbsent: true }), /cannot be fulfilled/);
});
