import assert from "node:assert/strict";
import { test } from "node:test";
import { setCondition, setExclusive } from "./conditions.ts";
import { injectEnv } from "./env.ts";
import { shortHash, stableStringify } from "./hash.ts";
import { mergePatch } from "./patch.ts";
import { applyStorage, planStorage } from "./storage.ts";
import { applyMergePatch } from "./testing.ts";

test("stableStringify ignores key order; shortHash is stable, short and name-safe", () => {
  assert.equal(stableStringify({ b: 1, a: [{ d: 2, c: undefined }] }), '{"a":[{"d":2}],"b":1}');
  assert.equal(shortHash({ a: 1, b: 2 }), shortHash({ b: 2, a: 1 }));
  assert.notEqual(shortHash({ a: 1 }), shortHash({ a: 2 }));
  assert.match(shortHash("x", 5), /^[0-9a-z]{5}$/);
});

test("planStorage: s3/http(s) are downloaded under /downloads, host paths mounted under /home/data", () => {
  assert.deepEqual(planStorage({ url: "s3://bucket/a/b.pb", credentialName: "c" }), {
    kind: "download",
    source: "s3://bucket/a/b.pb",
    path: "/downloads/bucket/a/b.pb",
    credentialName: "c",
  });
  assert.deepEqual(planStorage({ url: "https://host/m.pb" }), { kind: "download", source: "https://host/m.pb", path: "/downloads/host/m.pb", credentialName: undefined });
  assert.deepEqual(planStorage({ url: "/model/frozen.pb" }), { kind: "host", hostDir: "/model", path: "/home/data/model/frozen.pb" });
  assert.deepEqual(planStorage({ url: "/models/" }), { kind: "host", hostDir: "/models", path: "/home/data/models/" });
  assert.deepEqual(planStorage({ url: "relative" }), { kind: "as-is", path: "relative" });
});

test("applyStorage: one hostPath per directory, one initializer with every credential, mounts in every container", () => {
  const spec = applyStorage({ containers: [{ name: "a" }, { name: "b", volumeMounts: [{ name: "mine", mountPath: "/x" }] }] }, [
    planStorage({ url: "/data/1.txt" }),
    planStorage({ url: "/data/2.txt" }),
    planStorage({ url: "s3://b/m", credentialName: "s3" }),
  ]);
  assert.deepEqual(spec.volumes, [
    { name: "sedna-host-0", hostPath: { path: "/data", type: "DirectoryOrCreate" } },
    { name: "sedna-downloads", emptyDir: {} },
  ]);
  assert.deepEqual(spec.containers[1]?.["volumeMounts"], [
    { name: "mine", mountPath: "/x" },
    { name: "sedna-host-0", mountPath: "/home/data/data" },
    { name: "sedna-downloads", mountPath: "/downloads" },
  ]);
  assert.deepEqual(spec.initContainers?.[0]?.["args"], ["s3://b/m", "/downloads/b/m"]);
  assert.deepEqual(spec.initContainers?.[0]?.["envFrom"], [{ secretRef: { name: "s3" } }]);
  assert.equal(applyStorage({ containers: [{ name: "a" }] }, [planStorage({ url: "x" })]).volumes, undefined);
});

test("injectEnv: ours win over the user's same-named variables, the rest is kept", () => {
  const spec = injectEnv({ containers: [{ name: "a", env: [{ name: "LC_SERVER", value: "mine" }, { name: "keep", value: "1" }] }] }, [{ name: "LC_SERVER", value: "ours" }], ["creds"]);
  assert.deepEqual(spec.containers[0]?.env, [{ name: "keep", value: "1" }, { name: "LC_SERVER", value: "ours" }]);
  assert.deepEqual(spec.containers[0]?.["envFrom"], [{ secretRef: { name: "creds" } }]);
});

test("conditions: one per type, times move only on change, exclusive sets the others False", () => {
  const t0 = "2026-01-01T00:00:00Z";
  const t1 = "2026-01-01T00:00:01Z";
  const running = { type: "Running", status: "True" as const, reason: "r", message: "m" };
  const once = setCondition([], running, t0, "lastHeartbeatTime");
  assert.deepEqual(setCondition(once, running, t1, "lastHeartbeatTime"), once, "unchanged: nothing moves");
  const failed = setExclusive(once, { type: "Failed", status: "True", reason: "f", message: "x" }, ["Pending", "Running", "Failed"], t1, "lastHeartbeatTime");
  assert.deepEqual(failed.map((c) => [c.type, c.status, c.lastTransitionTime]), [["Running", "False", t1], ["Failed", "True", t1]]);
});

test("mergePatch produces the patch that applyMergePatch turns from into to", () => {
  const from = { a: 1, b: { c: 2, d: 3 }, e: [1, 2], gone: true };
  const to = { a: 1, b: { c: 5 }, e: [2], added: "x" };
  const patch = mergePatch(from, to);
  assert.deepEqual(patch, { b: { c: 5, d: null }, e: [2], added: "x", gone: null });
  assert.deepEqual(applyMergePatch(from, patch), to);
});
