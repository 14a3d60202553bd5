import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { crdOf } from "../../kit/crd/generate.ts";
import { structuralProblems, type SchemaNode } from "../../kit/crd/structural.ts";
import { gateVerdict, parseManifests } from "../../kit/testing/index.ts";
import controller from "./controller.ts";
import { podGroupResource } from "./podgroup-crd.ts";

const resources = controller.resources ?? [];

test("the scheduler-plugins PodGroup CRD: named, printed and shaped as upstream's (manifests/coscheduling/crd.yaml, v0.34.7)", () => {
  const crd = crdOf(podGroupResource) as { metadata: { name: string }; spec: { group: string; scope: string; names: SchemaNode; versions: SchemaNode[] } };
  assert.equal(crd.metadata.name, "podgroups.scheduling.x-k8s.io");
  assert.equal(crd.spec.scope, "Namespaced");
  assert.deepEqual(crd.spec.names["shortNames"], ["pg", "pgs"]);
  const version = crd.spec.versions[0] ?? {};
  assert.equal(version["name"], "v1alpha1");
  assert.deepEqual(version["subresources"], { status: {} });
  assert.deepEqual(
    (version["additionalPrinterColumns"] as { name: string; jsonPath: string }[]).map((c) => [c.name, c.jsonPath]),
    [["Phase", ".status.phase"], ["MinMember", ".spec.minMember"], ["Running", ".status.running"], ["Succeeded", ".status.succeeded"], ["Failed", ".status.failed"], ["Age", ".metadata.creationTimestamp"]],
  );
  const schema = (version["schema"] as SchemaNode)["openAPIV3Schema"] as { properties: Record<string, { properties: Record<string, unknown> }> };
  assert.deepEqual(structuralProblems(schema as SchemaNode), []);
  assert.deepEqual(Object.keys(schema.properties["spec"]?.properties ?? {}).sort(), ["minMember", "minResources", "scheduleTimeoutSeconds"]);
  assert.deepEqual(Object.keys(schema.properties["status"]?.properties ?? {}).sort(), ["failed", "occupiedBy", "phase", "running", "scheduleStartTime", "succeeded"]);
});

test("upstream's example PodGroups pass both gates (the CRD schema, strict, and the zod schema); a minMember of 0 passes neither", () => {
  for (const file of ["podgroup.yaml", "nginx-replicaset.yaml"]) {
    const manifest = parseManifests(readFileSync(new URL(`../../../test/fixtures/scheduler-plugins/${file}`, import.meta.url), "utf8")).find((m) => m["kind"] === "PodGroup");
    assert.ok(manifest, file);
    assert.deepEqual(gateVerdict(resources, "PodGroup", manifest), { crd: [], zod: undefined }, file);
  }
  const zero = gateVerdict(resources, "PodGroup", { apiVersion: "scheduling.x-k8s.io/v1alpha1", kind: "PodGroup", metadata: { name: "z" }, spec: { minMember: 0, minResources: { cpu: "2", memory: 1024 } } });
  assert.notDeepEqual(zero.crd, []);
  assert.notEqual(zero.zod, undefined);
});
