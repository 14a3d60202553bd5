import assert from "node:assert/strict";
import { test } from "node:test";
import { checkCrd, resourceOfCrd } from "../../crd/serving.ts";
import type { KubeObject } from "../../../protocol/index.ts";
import { storageKey } from "../../registry/resource.ts";
import { CUSTOM_RESOURCE } from "./custom-resources.ts";
import { BUILTIN_KINDS, kindOf } from "./registry.ts";

test("every built-in kind is registered once, and found by its resource", () => {
  const keys = BUILTIN_KINDS.map((kind) => storageKey(kind.resource));
  assert.equal(new Set(keys).size, keys.length, keys.join(" "));
  for (const kind of BUILTIN_KINDS) assert.equal(kindOf(kind.resource), kind, storageKey(kind.resource));
});

test("the objects of a CRD's kind are custom resources", () => {
  const crd = { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: "widgets.example.dev" }, spec: { group: "example.dev", scope: "Namespaced", names: { kind: "Widget", plural: "widgets" }, versions: [{ name: "v1", served: true, storage: true }] } } as KubeObject;
  const checked = checkCrd(crd);
  assert.ok("spec" in checked);
  assert.equal(kindOf(resourceOfCrd("widgets.example.dev", checked.spec)), CUSTOM_RESOURCE);
});
