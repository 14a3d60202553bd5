/** What every Sedna kind shares: its API group and version, and the small types its specs reuse. */
import { z } from "zod";

/** The API group and version of every Sedna kind. */
export const SEDNA_GROUP = "sedna.io";
export const SEDNA_VERSION = "v1alpha1";
export const SEDNA_API_VERSION = `${SEDNA_GROUP}/${SEDNA_VERSION}`;

/** `{name}`: a reference to a Model or Dataset in the same namespace. */
export const NameRef = z.object({ name: z.string().describe("Name of the object in the same namespace") });
export type NameRef = z.infer<typeof NameRef>;

/** `{key, value}` pairs, as upstream's ParaSpec and Metric. */
export const KeyValue = z.object({ key: z.string(), value: z.string() });
export type KeyValue = z.infer<typeof KeyValue>;
