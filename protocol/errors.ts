import { z } from "zod";

/** The JSON body of every 4xx/5xx the Worker and relay answer. */
export const ErrorBody = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    /** Dot path of the offending field (`children.Pod.v1.0.metadata`), or "" for the whole body. */
    path: z.string(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Turns the first zod issue into an error body that names the field. */
export function errorFromZod(error: z.ZodError, prefix = ""): ErrorBody {
  const issue = error.issues[0];
  const path = [prefix, ...(issue?.path ?? []).map(String)].filter((p) => p !== "").join(".");
  return { error: { code: "invalid", message: issue?.message ?? "invalid input", path } };
}
