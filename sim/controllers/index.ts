import type { SimController, SimControllerOptions } from "../cluster.ts";

/** The sim's built-in controllers (GC, Deployment, scheduler, kubelet, endpoints, node lifecycle). */
export function builtinControllers(_options: SimControllerOptions): SimController[] {
  return [];
}
