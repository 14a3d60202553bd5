import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import federatedLearning from "./federatedlearning/controller.ts";
import jointInference from "./jointinference/controller.ts";
import { crdOf, openApiSchemaOf, uniqueResources } from "../../kit/crd/generate.ts";
import type { CustomResource } from "../../kit/crd/resource.ts";
import { structuralProblems, type SchemaNode } from "../../kit/crd/structural.ts";
import { gateVerdict, parseManifests, resourceOf, type GateVerdict } from "../../kit/testing/index.ts";

function loadFixture(file: string): Record<string, unknown>[] {
  return parseManifests(readFileSync(new URL(`fixtures/${file}`, import.meta.url), "utf8"));
}

const resources = uniqueResources([...(jointInference.resources ?? []), ...(federatedLearning.resources ?? [])]);
const byKind = (kind: string): CustomResource => resourceOf(resources, kind);

/** What both gates say about a manifest: the generated CRD schema (strict, as kubectl) and the zod schema. */
const check = (kind: string, manifest: Record<string, unknown>): GateVerdict => gateVerdict(resources, kind, manifest);

test("the Sedna kinds are served: ji, fl, Dataset, Model, namespaced, with a status subresource", () => {
  assert.deepEqual(resources.map((r) => r.kind).sort(), ["Dataset", "FederatedLearningJob", "JointInferenceService", "Model"]);
  for (const resource of resources) {
    const crd = crdOf(resource) as { spec: { scope: string; versions: SchemaNode[]; names: SchemaNode; group: string } };
    assert.equal(crd.spec.group, "sedna.io");
    assert.equal(crd.spec.scope, "Namespaced");
    assert.deepEqual(crd.spec.versions[0]?.["subresources"], { status: {} });
    assert.deepEqual(structuralProblems((crd.spec.versions[0]?.["schema"] as SchemaNode)["openAPIV3Schema"]), [], resource.kind);
  }
  assert.deepEqual(byKind("JointInferenceService").shortNames, ["ji"]);
  assert.deepEqual(byKind("FederatedLearningJob").shortNames, ["fl"]);
});

for (const [file, kind] of [
  ["jointinferenceservice_v1alpha1.yaml", "JointInferenceService"],
  ["federatedlearningjob_v1alpha1.yaml", "FederatedLearningJob"],
  ["model_v1alpha1.yaml", "Model"],
] as const) {
  test(`upstream fixture ${file} is accepted by the generated CRD schema and the zod schema`, () => {
    const manifest = loadFixture(file)[0];
    assert.ok(manifest);
    assert.deepEqual(check(kind, manifest), { crd: [], zod: undefined });
  });
}

test("our Model and Dataset schemas accept everything upstream's CRDs define, and require no more", () => {
  for (const [file, kind] of [["sedna.io_models.yaml", "Model"], ["sedna.io_datasets.yaml", "Dataset"]] as const) {
    const upstream = loadFixture(file)[0] as { spec: { versions: { schema: { openAPIV3Schema: SchemaNode } }[] } };
    const theirs = upstream.spec.versions[0]?.schema.openAPIV3Schema["properties"] as Record<string, SchemaNode>;
    const ours = openApiSchemaOf(byKind(kind))["properties"] as Record<string, SchemaNode>;
    for (const part of ["spec", "status"]) {
      const theirProps = theirs[part]?.["properties"] as Record<string, SchemaNode>;
      const ourProps = ours[part]?.["properties"] as Record<string, SchemaNode>;
      for (const [name, schema] of Object.entries(theirProps)) {
        assert.equal(ourProps[name]?.["type"], schema["type"], `${kind} ${part}.${name}`);
      }
      const theirRequired = new Set((theirs[part]?.["required"] as string[] | undefined) ?? []);
      for (const name of (ours[part]?.["required"] as string[] | undefined) ?? []) assert.ok(theirRequired.has(name), `${kind} ${part}.${name} required only here`);
    }
  }
});

function withSpec(file: string, edit: (spec: Record<string, unknown>) => void): Record<string, unknown> {
  const manifest = structuredClone(loadFixture(file)[0]) as Record<string, unknown>;
  edit(manifest["spec"] as Record<string, unknown>);
  return manifest;
}

test("a bad JointInferenceService spec is rejected, naming the field", () => {
  const bad = withSpec("jointinferenceservice_v1alpha1.yaml", (spec) => {
    (spec["cloudWorker"] as Record<string, unknown>)["hpa"] = { maxReplicas: "ten" };
  });
  const result = check("JointInferenceService", bad);
  assert.deepEqual(result.crd.map((v) => v.path), ["spec.cloudWorker.hpa.maxReplicas"]);
  assert.equal(result.zod, "spec.cloudWorker.hpa.maxReplicas");
});

test("a JointInferenceService without an edge model is rejected, naming the field", () => {
  const bad = withSpec("jointinferenceservice_v1alpha1.yaml", (spec) => {
    delete (spec["edgeWorker"] as Record<string, unknown>)["model"];
  });
  const result = check("JointInferenceService", bad);
  assert.deepEqual(result.crd, [{ path: "spec.edgeWorker.model", message: "Required value" }]);
  assert.equal(result.zod, "spec.edgeWorker.model");
});

test("a bad FederatedLearningJob spec is rejected, naming the field", () => {
  const bad = withSpec("federatedlearningjob_v1alpha1.yaml", (spec) => {
    spec["trainingWorkers"] = { dataset: { name: "d" } };
  });
  const result = check("FederatedLearningJob", bad);
  assert.deepEqual(result.crd.map((v) => v.path), ["spec.trainingWorkers"]);
  assert.equal(result.zod, "spec.trainingWorkers");
  const noContainers = withSpec("federatedlearningjob_v1alpha1.yaml", (spec) => {
    const workers = spec["trainingWorkers"] as { template: { spec: Record<string, unknown> } }[];
    if (workers[1]) workers[1].template.spec["containers"] = [];
  });
  const second = check("FederatedLearningJob", noContainers);
  assert.deepEqual(second.crd.map((v) => v.path), ["spec.trainingWorkers.1.template.spec.containers"]);
  assert.equal(second.zod, "spec.trainingWorkers.1.template.spec.containers");
});

test("a Model without a url and a Dataset without a nodeName are rejected, naming the field", () => {
  const model = check("Model", { apiVersion: "sedna.io/v1alpha1", kind: "Model", metadata: { name: "m" }, spec: { format: "pb" } });
  assert.deepEqual(model.crd.map((v) => v.path), ["spec.url"]);
  assert.equal(model.zod, "spec.url");
  const dataset = check("Dataset", { apiVersion: "sedna.io/v1alpha1", kind: "Dataset", metadata: { name: "d" }, spec: { url: "/d", format: "txt" } });
  assert.deepEqual(dataset.crd.map((v) => v.path), ["spec.nodeName"]);
  assert.equal(dataset.zod, "spec.nodeName");
});
