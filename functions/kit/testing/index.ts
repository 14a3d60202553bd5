/**
 * Test support for controllers built on the kit: a fake cluster that applies decisions as
 * the relay and the Worker shell do, trigger builders, and manifest reading. Import it
 * from tests only (`functions/kit/testing/index.ts`); lint keeps it out of the Worker.
 */
export { FakeCluster, type Applied } from "./fake-cluster.ts";
export { parseManifests } from "./manifests.ts";
export { actionsOf, deletedTrigger, modifiedTrigger } from "./triggers.ts";
export { gateVerdict, resourceOf, type GateVerdict } from "./crd-gates.ts";
export { admissionRequest, patchOf, type AdmissionOptions } from "./admission.ts";
