/** Reading manifests in tests: upstream fixtures are multi-document YAML. */
import { parseAllDocuments } from "yaml";

/** Every YAML document of a manifest text, as plain data. */
export function parseManifests(text: string): Record<string, unknown>[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJSON() as unknown)
    .filter((doc): doc is Record<string, unknown> => typeof doc === "object" && doc !== null);
}
