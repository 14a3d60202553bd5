import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parseManifests } from "../../../kit/testing/index.ts";
import { MOCK_AGCONFIG_MANIFEST, MOCK_JOB_MANIFEST } from "./testing/world.ts";

function fixture(file: string): Record<string, unknown> | undefined {
  return parseManifests(readFileSync(new URL(`../fixtures/${file}`, import.meta.url), "utf8"))[0];
}

test("the test world's mock job and AggregatorConfig are upstream's mock manifests", () => {
  assert.deepEqual(MOCK_JOB_MANIFEST, fixture("nervex-mock-nervexjob.yaml"));
  assert.deepEqual(MOCK_AGCONFIG_MANIFEST, fixture("nervex-mock-agconfig.yaml"));
});
