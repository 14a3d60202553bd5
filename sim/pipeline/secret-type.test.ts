/** validateSecretType against ValidateSecret (k8s.io/kubernetes v1.36.3 pkg/apis/core/validation): each type's rule, a case it refuses and one it accepts. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { validateSecretType } from "./validation.ts";

const b64 = (text: string): string => Buffer.from(text).toString("base64");
const secret = (type: string, data: Record<string, string>, annotations: Record<string, string> = {}): Record<string, unknown> => ({ type, metadata: { name: "s", annotations }, data });
const fields = (o: Record<string, unknown>): string[] => validateSecretType(o).map((c) => `${c.field}: ${c.message}`);

const CASES: ReadonlyArray<readonly [string, Record<string, unknown>, readonly string[]]> = [
  ["Opaque takes anything", secret("Opaque", { x: b64("y") }), []],
  ["no type is Opaque", secret("", {}), []],
  ["an unknown type has no rule", secret("example.com/custom", {}), []],
  ["tls without its keys", secret("kubernetes.io/tls", {}), ["data[tls.crt]: Required value", "data[tls.key]: Required value"]],
  ["tls with empty keys (present is enough)", secret("kubernetes.io/tls", { "tls.crt": "", "tls.key": "" }), []],
  ["service-account-token without its account", secret("kubernetes.io/service-account-token", {}), ["metadata.annotations[kubernetes.io/service-account.name]: Required value"]],
  ["service-account-token naming an empty account", secret("kubernetes.io/service-account-token", {}, { "kubernetes.io/service-account.name": "" }), ["metadata.annotations[kubernetes.io/service-account.name]: Required value"]],
  ["service-account-token naming its account", secret("kubernetes.io/service-account-token", {}, { "kubernetes.io/service-account.name": "default" }), []],
  ["dockercfg without its key", secret("kubernetes.io/dockercfg", {}), ["data[.dockercfg]: Required value"]],
  ["dockercfg not JSON", secret("kubernetes.io/dockercfg", { ".dockercfg": b64("abc") }), [`data[.dockercfg]: Invalid value: "<secret contents redacted>": invalid character 'a' looking for beginning of value`]],
  ["dockercfg empty", secret("kubernetes.io/dockercfg", { ".dockercfg": "" }), [`data[.dockercfg]: Invalid value: "<secret contents redacted>": unexpected end of JSON input`]],
  ["dockerconfigjson an array", secret("kubernetes.io/dockerconfigjson", { ".dockerconfigjson": b64("[]") }), [`data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}`]],
  ["dockerconfigjson an object", secret("kubernetes.io/dockerconfigjson", { ".dockerconfigjson": b64('{"auths":{}}') }), []],
  ["dockerconfigjson without its key", secret("kubernetes.io/dockerconfigjson", {}), ["data[.dockerconfigjson]: Required value"]],
  ["basic-auth with neither key", secret("kubernetes.io/basic-auth", {}), ["data[username]: Required value", "data[password]: Required value"]],
  ["basic-auth with an empty password only", secret("kubernetes.io/basic-auth", { password: "" }), []],
  ["ssh-auth with an empty key", secret("kubernetes.io/ssh-auth", { "ssh-privatekey": "" }), ["data[ssh-privatekey]: Required value"]],
  ["ssh-auth with a key", secret("kubernetes.io/ssh-auth", { "ssh-privatekey": b64("k") }), []],
  ["more than 1 MiB of data", secret("Opaque", { a: b64("x".repeat(600_000)), b: b64("y".repeat(600_000)) }), ["data: Too long: may not be more than 1048576 bytes"]],
];

for (const [name, object, expected] of CASES) {
  test(`Secret type: ${name}`, () => {
    assert.deepEqual(fields(object), expected);
  });
}
