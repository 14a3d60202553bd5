import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../protocol/index.ts";
import { SimCluster } from "../api/sim-cluster.ts";
import { openApiGroupVersion, openApiIndex } from "./openapi.ts";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested fields

/** Every `$ref` in `value`. */
function refs(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refs);
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => (k === "$ref" && typeof v === "string" ? [v] : refs(v)));
}

function closed(doc: Obj): void {
  for (const ref of refs(doc.components.schemas)) {
    assert.match(ref, /^#\/components\/schemas\//);
    assert.ok(doc.components.schemas[ref.slice("#/components/schemas/".length)], `${ref} resolves within the document`);
  }
}

test("each group-version lists its kinds' schemas, tagged with their GVK, every $ref within the document", () => {
  const cluster = new SimCluster();
  const core = openApiGroupVersion(cluster.registry, "", "v1") as Obj;
  const pod = core.components.schemas["io.k8s.api.core.v1.Pod"];
  assert.deepEqual(pod["x-kubernetes-group-version-kind"], [{ group: "", kind: "Pod", version: "v1" }]);
  assert.deepEqual(pod.properties.spec, { $ref: "#/components/schemas/io.k8s.api.core.v1.PodSpec" });
  assert.ok(core.components.schemas["io.k8s.api.core.v1.PodSpec"].properties.containers.description);
  assert.ok(core.paths["/api/v1/namespaces/{namespace}/pods/{name}"].patch["x-kubernetes-group-version-kind"]);
  closed(core);
  const apps = openApiGroupVersion(cluster.registry, "apps", "v1") as Obj;
  assert.deepEqual(apps.components.schemas["io.k8s.api.apps.v1.Deployment"]["x-kubernetes-group-version-kind"], [{ group: "apps", kind: "Deployment", version: "v1" }]);
  assert.equal(apps.components.schemas["io.k8s.api.core.v1.Pod"], undefined, "only what the group's kinds reach");
  closed(apps);
  assert.equal(openApiGroupVersion(cluster.registry, "nothing.dev", "v1"), undefined);
});

test("a custom resource's schema is its CRD's, with apiVersion, kind and ObjectMeta metadata; the index hash follows the content", async () => {
  const cluster = new SimCluster();
  const before = openApiIndex(cluster.registry) as Obj;
  assert.match(before.paths["api/v1"].serverRelativeURL, /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{64}$/);
  await cluster.create({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.dev" },
    spec: {
      group: "example.dev",
      scope: "Namespaced",
      names: { plural: "widgets", kind: "Widget" },
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", description: "The widget.", properties: { size: { type: "integer" } } } } } } }],
    },
  } as unknown as KubeObject);
  const doc = openApiGroupVersion(cluster.registry, "example.dev", "v1") as Obj;
  const widget = doc.components.schemas["dev.example.v1.Widget"];
  assert.deepEqual(widget["x-kubernetes-group-version-kind"], [{ group: "example.dev", kind: "Widget", version: "v1" }]);
  assert.equal(widget.properties.spec.description, "The widget.");
  assert.deepEqual(widget.properties.metadata.allOf, [{ $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" }]);
  closed(doc);
  const after = openApiIndex(cluster.registry) as Obj;
  assert.ok(after.paths["apis/example.dev/v1"]);
  assert.equal(after.paths["api/v1"].serverRelativeURL, before.paths["api/v1"].serverRelativeURL, "an unchanged document keeps its hash");
});
