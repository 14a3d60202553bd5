/**
 * Imported first by `../cluster.bench.ts`: selects the real control plane as the target
 * of the end-to-end harness (`test/e2e/harness.ts` reads `EDGELOOP_E2E_TARGET` when it is
 * loaded), so that the cluster bench starts its stacks exactly as `npm run test:cluster`
 * does (`e2eStack`: `startControlPlane`, then `startOnCluster`). The bench runs in a
 * process of its own (`npm run bench` spawns each part with `--one`).
 */
process.env.EDGELOOP_E2E_TARGET = "cluster";
