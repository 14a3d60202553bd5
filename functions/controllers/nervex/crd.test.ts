import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import controller from "./controller.ts";
import { crdOf, openApiSchemaOf } from "../../kit/crd/generate.ts";
import type { CustomResource } from "../../kit/crd/resource.ts";
import { validateStructural } from "../../kit/crd/validate.ts";
import { structuralProblems, type SchemaNode } from "../../kit/crd/structural.ts";
import { gateVerdict, parseManifests, resourceOf, type GateVerdict } from "../../kit/testing/index.ts";
import { AggregatorConfig } from "./aggregator-config.ts";
import { NerveXJob } from "./schema.ts";

function loadFixture(file: string): Record<string, unknown> {
  const manifest = parseManifests(readFileSync(new URL(`fixtures/${file}`, import.meta.url), "utf8"))[0];
  assert.ok(manifest, file);
  return manifest;
}

const resources = controller.resources ?? [];
const byKind = (kind: string): CustomResource => resourceOf(resources, kind);

/** What both gates say about a manifest: the generated CRD schema (strict, as kubectl) and the zod schema. */
const check = (kind: string, manifest: Record<string, unknown>): GateVerdict => gateVerdict(resources, kind, manifest);

test("the NerveX kinds: nvxjob with a status subresource and a Phase column, agconfig", () => {
  assert.deepEqual(resources.map((r) => r.kind).sort(), ["AggregatorConfig", "NerveXJob"]);
  for (const resource of resources) {
    const crd = crdOf(resource) as { spec: { scope: string; versions: SchemaNode[]; group: string } };
    assert.equal(crd.spec.group, "nervex.sensetime.com");
    assert.equal(crd.spec.scope, "Namespaced");
    assert.deepEqual(structuralProblems((crd.spec.versions[0]?.["schema"] as SchemaNode)["openAPIV3Schema"]), [], resource.kind);
  }
  const job = crdOf(byKind("NerveXJob")) as { metadata: { name: string }; spec: { names: SchemaNode; versions: SchemaNode[] } };
  assert.equal(job.metadata.name, "nervexjobs.nervex.sensetime.com");
  assert.deepEqual(job.spec.names["shortNames"], ["nvxjob"]);
  assert.deepEqual(job.spec.versions[0]?.["subresources"], { status: {} });
  assert.deepEqual(job.spec.versions[0]?.["additionalPrinterColumns"], [
    { name: "Phase", type: "string", jsonPath: ".status.phase" },
    { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
  ]);
  assert.deepEqual((crdOf(byKind("AggregatorConfig")) as { spec: { names: SchemaNode } }).spec.names["shortNames"], ["agconfig"]);
});

for (const [file, kind] of [
  ["nervex_v1alpha1_nervexjob.yaml", "NerveXJob"],
  ["nervex-mock-nervexjob.yaml", "NerveXJob"],
  ["nervex-mock-agconfig.yaml", "AggregatorConfig"],
] as const) {
  test(`upstream fixture ${file} is accepted by the generated CRD schema and the zod schemas`, () => {
    const manifest = loadFixture(file);
    assert.deepEqual(check(kind, manifest), { crd: [], zod: undefined });
    const whole = (kind === "NerveXJob" ? NerveXJob : AggregatorConfig).safeParse(manifest);
    assert.ok(whole.success, file);
  });
}

test("the cartpole fixture keeps every field it uses: volumes' sources, env, ports, volumeMounts", () => {
  const manifest = loadFixture("nervex_v1alpha1_nervexjob.yaml");
  const job = NerveXJob.parse(manifest);
  assert.deepEqual(job.spec.volumes?.[0], { name: "data-dir", hostPath: { path: "/data/nfs/nervex/cartpole" } });
  assert.equal(job.spec.priorityClassName, "");
  assert.equal(job.spec.cleanPodPolicy, "Running");
  const learner = job.spec.learner?.template.spec.containers[0];
  assert.deepEqual(learner?.["volumeMounts"], [{ name: "cache-volume", mountPath: "/dev/shm" }, { name: "data-dir", mountPath: "/data/nfs/nervex/cartpole" }]);
  assert.deepEqual(learner?.["ports"], [{ name: "nervex-port", containerPort: 22270 }]);
});

test("a job of a coordinator alone (serial) is accepted; without a coordinator it is refused, naming the field; any policy string is the webhook's to refuse", () => {
  const serial = loadFixture("nervex-mock-nervexjob.yaml");
  const spec = serial["spec"] as Record<string, unknown>;
  delete spec["collector"];
  delete spec["learner"];
  delete spec["cleanPodPolicy"];
  assert.deepEqual(check("NerveXJob", serial), { crd: [], zod: undefined });
  const none = structuredClone(serial);
  delete (none["spec"] as Record<string, unknown>)["coordinator"];
  assert.deepEqual(check("NerveXJob", none), { crd: [{ path: "spec.coordinator", message: "Required value" }], zod: "spec.coordinator" });
  const bad = structuredClone(serial);
  (bad["spec"] as Record<string, unknown>)["cleanPodPolicy"] = "Sometimes";
  // As upstream's CRD: a string; the validating webhook refuses it with the allowed values (webhooks.test.ts).
  assert.deepEqual(check("NerveXJob", bad), { crd: [], zod: undefined });
});

test("a status as the controller writes it is accepted by the CRD schema", () => {
  const manifest = loadFixture("nervex-mock-nervexjob.yaml");
  manifest["status"] = {
    phase: "Running",
    conditions: [{ type: "Running", status: "True", reason: "NerveXJobRunning", message: "m", lastUpdateTime: "2026-01-01T00:00:00Z", lastTransitionTime: "2026-01-01T00:00:00Z" }],
    replicaStatus: { Coordinator: { active: 1, succeeded: 0, failed: 0 }, Collector: { active: 2, succeeded: 0, failed: 0 }, Learner: { active: 0, succeeded: 0, failed: 0 }, Aggregator: { active: 1, succeeded: 0, failed: 0 } },
    coordinatorUid: "u",
  };
  assert.deepEqual(validateStructural(openApiSchemaOf(byKind("NerveXJob")), manifest, { unknownFields: "reject" }), []);
});
