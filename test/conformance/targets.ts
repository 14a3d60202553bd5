/**
 * The two servers compared: the sim (in this process, plain HTTP) and the real control
 * plane (kube-apiserver, its controllers and kwok kubelets; HTTPS with the admin
 * certificate), each started on a free port in a temporary folder, with the same nodes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "../../cli/wait.ts";
import { defaultCacheDir } from "../../cluster/build.ts";
import { startControlPlane } from "../../cluster/index.ts";
import { crdOf, uniqueResources } from "../../functions/kit/crd/generate.ts";
import type { CustomResource } from "../../functions/kit/crd/resource.ts";
import { loadControllers } from "../../scripts/lib/controllers.ts";
import { startSim } from "../../sim/index.ts";
import { Endpoint } from "./endpoint.ts";
import type { Target } from "./runner.ts";

/** The nodes both servers run: `npm start`'s and `npm run cluster`'s defaults. */
export const NODES = ["cloud", "edge1", "edge2", "edge-node"];

export interface Targets {
  readonly sim: Target;
  readonly real: Target;
  /** Installs the Sedna (and every other controller's) CRDs on both, waiting until they are served. */
  installCrds(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts both servers; `progress` gets a line per step of the real control plane's start. */
export async function startTargets(progress: (line: string) => void): Promise<Targets> {
  const dir = mkdtempSync(join(tmpdir(), "edgeloop-conformance-"));
  const sim = await startSim({ port: 0, nodes: NODES });
  let plane;
  try {
    plane = await startControlPlane({ stateDir: join(dir, "cluster"), port: 0, nodes: NODES, cacheDir: defaultCacheDir(process.env), env: process.env, fresh: true, progress });
  } catch (error) {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const simEndpoint = Endpoint.plain("sim", sim.url);
  const realEndpoint = Endpoint.fromKubeconfig("real", plane.kubeconfigPath);
  const simTarget: Target = {
    endpoint: simEndpoint,
    compact: () => {
      sim.cluster.store.history.compact(sim.cluster.store.resourceVersion);
      return Promise.resolve();
    },
    restart: () => {
      sim.cluster.store.history.compact(sim.cluster.store.resourceVersion);
      sim.closeWatches();
      return Promise.resolve();
    },
    // The sim has no ServiceAccount admission: a pod needs no `default` ServiceAccount.
    namespaceReady: () => Promise.resolve(),
  };
  const realTarget: Target = {
    endpoint: realEndpoint,
    compact: async () => {
      await plane.compactEtcd();
    },
    restart: async () => {
      await plane.compactEtcd();
      await plane.restartApiServer();
    },
    // kube-apiserver's ServiceAccount admission refuses pods until the controller manager made `default`.
    namespaceReady: async (namespace) => {
      await waitFor(`real: the default ServiceAccount in ${namespace} (GET's status)`, async () => (await realEndpoint.request({ method: "GET", path: `/api/v1/namespaces/${namespace}/serviceaccounts/default` })).status, (status) => status === 200, { timeoutMs: 15_000, intervalMs: 100 });
    },
  };
  let crdsInstalled = false;
  return {
    sim: simTarget,
    real: realTarget,
    async installCrds(): Promise<void> {
      if (crdsInstalled) return;
      const resources: CustomResource[] = uniqueResources((await loadControllers()).flatMap((c) => c.resources ?? []));
      for (const endpoint of [simEndpoint, realEndpoint]) {
        for (const resource of resources) {
          const crd = crdOf(resource);
          const answer = await endpoint.request({ method: "POST", path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", body: crd });
          if (answer.status !== 201 && answer.status !== 409) throw new Error(`${endpoint.name}: creating CRD ${resource.plural}.${resource.group}: ${answer.status} ${JSON.stringify(answer.body)}`);
          const path = `/apis/${resource.group}/${resource.version}/${resource.plural}`;
          await waitFor(`${endpoint.name}: CRD ${resource.plural}.${resource.group} to be served (GET's status)`, async () => (await endpoint.request({ method: "GET", path })).status, (status) => status === 200, { timeoutMs: 30_000, intervalMs: 100 });
        }
      }
      crdsInstalled = true;
    },
    async stop(): Promise<void> {
      simEndpoint.close();
      realEndpoint.close();
      await Promise.allSettled([sim.stop(), plane.stop()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
