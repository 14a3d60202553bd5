import assert from "node:assert/strict";
import { test } from "node:test";
import { applyStorage, planStorage, storageEnv } from "./storage.ts";

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

test("storageEnv: DATA_PATH_PREFIX only when a host path is mounted (upstream's injector)", () => {
  assert.deepEqual(storageEnv([planStorage({ url: "/data/1.txt" }), planStorage({ url: "s3://b/m" })]), [{ name: "DATA_PATH_PREFIX", value: "/home/data" }]);
  assert.deepEqual(storageEnv([planStorage({ url: "s3://b/m" }), planStorage({ url: "relative" })]), []);
});
