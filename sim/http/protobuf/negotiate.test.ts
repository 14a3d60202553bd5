import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "../../contract.ts";
import { negotiate, PROTOBUF } from "./negotiate.ts";

test("JSON when the client accepts it or says nothing; protobuf only when preferred and writable", () => {
  assert.equal(negotiate(undefined, true), "json");
  assert.equal(negotiate("", true), "json");
  assert.equal(negotiate("application/json, */*", true), "json");
  assert.equal(negotiate(`${PROTOBUF}, application/json`, true), "protobuf", "kubectl's typed clients prefer protobuf");
  assert.equal(negotiate(`${PROTOBUF}, application/json`, false), "json", "a kind the sim has no definition for, or a watch");
  assert.equal(negotiate(`${PROTOBUF};q=0.5, application/json`, true), "json", "q orders before position");
  assert.equal(negotiate("application/json;as=Table;v=v1;g=meta.k8s.io, application/json", true), "json");
  assert.equal(negotiate(`${PROTOBUF};as=Table;v=v1;g=meta.k8s.io, application/json`, true), "json", "no protobuf Tables");
  assert.equal(negotiate("application/yaml", true), "json", "the sim writes JSON where YAML is asked, as before");
});

test("406 NotAcceptable with the media types that could have been written", () => {
  const status = (accept: string, protobuf: boolean): { code: number; message: string } => {
    try {
      negotiate(accept, protobuf);
    } catch (error) {
      if (error instanceof ApiError) return { code: error.code, message: error.message };
      throw error;
    }
    assert.fail(`${accept} was accepted`);
  };
  assert.deepEqual(status(PROTOBUF, false), { code: 406, message: "only the following media types are accepted: application/json, application/yaml" });
  assert.deepEqual(status("text/plain", true), { code: 406, message: `only the following media types are accepted: application/json, application/yaml, ${PROTOBUF}` });
  assert.equal(status("application/json;q=0", true).code, 406, "q=0 means not acceptable");
});
