/** The API group and version every NerveX kind shares (DI-orchestrator's `nervex.sensetime.com`). */
export const NERVEX_GROUP = "nervex.sensetime.com";
export const NERVEX_VERSION = "v1alpha1";
export const NERVEX_API_VERSION = `${NERVEX_GROUP}/${NERVEX_VERSION}`;
