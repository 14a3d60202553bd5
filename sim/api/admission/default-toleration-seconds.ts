/** The DefaultTolerationSeconds admission plugin (sim/pipeline/tolerations.ts) on pod creates and updates, not their subresources. */
import { defaultTolerationSeconds as withDefaultTolerations } from "../../pipeline/tolerations.ts";
import type { AdmissionStep } from "./step.ts";

/** DefaultTolerationSeconds. */
export const defaultTolerationSeconds: AdmissionStep = {
  name: "DefaultTolerationSeconds",
  admit: (draft, write) => (write.resource.group === "" && write.resource.kind === "Pod" && write.subresource === "" ? withDefaultTolerations(draft, write.server.defaultTolerations) : draft),
};
