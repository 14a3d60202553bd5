/** A mutating admission webhook on 127.0.0.1 for the sim's tests: it records the reviews it is sent and answers with a JSON patch. */
import { createServer, type Server } from "node:http";
import type { KubeObject } from "../../protocol/index.ts";

type Obj = Record<string, unknown>;

/** A running webhook. */
export interface TestWebhook {
  readonly url: string;
  /** The `request` of every review received, in order. */
  readonly requests: Obj[];
  /** A MutatingWebhookConfiguration calling it for `resources` of `group` on `operations`. */
  configuration(name: string, group: string, resources: readonly string[], operations: readonly string[]): KubeObject;
  close(): Promise<void>;
}

/** Starts a webhook whose answer to each request is `patchOf(request)` (no patch when it returns undefined). */
export async function startWebhook(patchOf: (request: Obj) => unknown[] | undefined): Promise<TestWebhook> {
  const requests: Obj[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const request = (JSON.parse(body) as { request: Obj }).request;
      requests.push(request);
      const patch = patchOf(request);
      const response = { uid: request.uid, allowed: true, ...(patch ? { patchType: "JSONPatch", patch: Buffer.from(JSON.stringify(patch)).toString("base64") } : {}) };
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/mutate`;
  return {
    url,
    requests,
    configuration(name: string, group: string, resources: readonly string[], operations: readonly string[]): KubeObject {
      return {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingWebhookConfiguration",
        metadata: { name },
        webhooks: [{ name: `${name}.example.com`, clientConfig: { url }, rules: [{ operations, apiGroups: [group], apiVersions: ["*"], resources }], sideEffects: "None", admissionReviewVersions: ["v1"] }],
      } as KubeObject;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
