import assert from "node:assert/strict";
import { test } from "node:test";
import type { PodTemplate } from "../../kit/pod.ts";
import { DEFAULT_PORTS, withNervexPort } from "./ports.ts";

function template(containers: Record<string, unknown>[]): PodTemplate {
  return { spec: { containers: containers as PodTemplate["spec"]["containers"] } };
}

test("upstream's default ports", () => {
  assert.deepEqual(DEFAULT_PORTS, { collector: 22270, learner: 22271, aggregator: 22272, coordinator: 22273, "ddp-learner": 22271 });
});

test("the declared nervex-port of nervex-container is used as is", () => {
  const given = template([{ name: "nervex-container", ports: [{ name: "nervex-port", containerPort: 80 }] }]);
  const { template: out, port } = withNervexPort(given, "collector");
  assert.equal(port, 80);
  assert.deepEqual(out, given);
});

test("without one, the type's default is added to nervex-container, other ports kept", () => {
  const given = template([
    { name: "sidecar", ports: [{ name: "nervex-port", containerPort: 1 }] },
    { name: "nervex-container", ports: [{ name: "metrics", containerPort: 9090 }] },
  ]);
  const { template: out, port } = withNervexPort(given, "coordinator");
  assert.equal(port, 22273);
  // The sidecar's same-named port is not the NerveX port: only nervex-container counts.
  assert.deepEqual(out.spec.containers[0], given.spec.containers[0]);
  assert.deepEqual(out.spec.containers[1]?.["ports"], [
    { name: "metrics", containerPort: 9090 },
    { name: "nervex-port", containerPort: 22273, protocol: "TCP" },
  ]);
  // The input is not mutated.
  assert.deepEqual(given.spec.containers[1]?.["ports"], [{ name: "metrics", containerPort: 9090 }]);
});

test("a template without nervex-container configures its first container", () => {
  const { template: out, port } = withNervexPort(template([{ name: "main" }, { name: "other" }]), "learner");
  assert.equal(port, 22271);
  assert.deepEqual(out.spec.containers[0]?.["ports"], [{ name: "nervex-port", containerPort: 22271, protocol: "TCP" }]);
  assert.equal(out.spec.containers[1]?.["ports"], undefined);
});

test("a nervex-port without a number is replaced by the default, not duplicated", () => {
  const { template: out, port } = withNervexPort(template([{ name: "nervex-container", ports: [{ name: "nervex-port" }] }]), "aggregator");
  assert.equal(port, 22272);
  assert.deepEqual(out.spec.containers[0]?.["ports"], [{ name: "nervex-port", containerPort: 22272, protocol: "TCP" }]);
});
