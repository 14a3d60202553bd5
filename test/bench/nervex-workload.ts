/** The NerveX benches' workload, on the sim and on the real control plane alike: the jobs and the coordinator's process. */
import { fork } from "node:child_process";
import { join } from "node:path";
import type { KubeObject } from "../../protocol/index.ts";
import type { CoordinatorAnswer, CoordinatorCall } from "./coordinator-process.ts";

/** The namespace the jobs run in. */
export const NAMESPACE = "rl";

/** A NerveXJob whose three roles run a python entry point (never ending on either target). */
export function job(name: string): KubeObject {
  const template = (role: string): Record<string, unknown> => ({
    spec: { terminationGracePeriodSeconds: 0, containers: [{ name: "nervex-container", image: "nervex:v0.0.5", command: ["/bin/bash", "-c"], args: [`python3 -u main.py ${role}`] }] },
  });
  return {
    apiVersion: "nervex.sensetime.com/v1alpha1",
    kind: "NerveXJob",
    metadata: { name, namespace: NAMESPACE },
    spec: { cleanPodPolicy: "Running", coordinator: { template: template("coordinator") }, collector: { template: template("collector") }, learner: { template: template("learner") } },
  } as KubeObject;
}

/** The coordinator's process (`./coordinator-process.ts`), one call at a time. */
export function coordinatorProcess(): { call(request: CoordinatorCall): Promise<CoordinatorAnswer>; stop(): void } {
  const child = fork(join(import.meta.dirname, "coordinator-process.ts"), [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return {
    call: (request) =>
      new Promise((resolve) => {
        child.once("message", (answer) => resolve(answer as CoordinatorAnswer));
        child.send(request);
      }),
    stop: () => child.disconnect(),
  };
}
