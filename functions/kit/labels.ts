/** Labels edgeloop puts on the children it creates, whatever the controller. */

/** Label carrying the hash of the spec a child was built from (tells old children from new). */
export const SPEC_HASH_LABEL = "edgeloop.dev/spec-hash";

/** Label naming a child's slot in its parent (`aggregation`, `train-0`, ...), for parents with several alike. */
export const WORKER_SLOT_LABEL = "edgeloop.dev/worker";
