/** Test support for webhooks: AdmissionRequests as the API server sends them, and the JSON patch of an answer. */
import assert from "node:assert/strict";
import type { AdmissionRequest, AdmissionResponse, KubeObject } from "../../../protocol/index.ts";

/** What a test says of the request; an UPDATE's `oldObject` defaults to the object itself. */
export interface AdmissionOptions {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly resource: string;
  readonly operation: "CREATE" | "UPDATE";
  readonly object: KubeObject | Record<string, unknown> | undefined;
  readonly namespace?: string;
}

/** An AdmissionRequest with uid `req-1`. */
export function admissionRequest(options: AdmissionOptions): AdmissionRequest {
  const { group, version, kind, resource, operation, object } = options;
  return {
    uid: "req-1",
    kind: { group, version, kind },
    resource: { group, version, resource },
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    operation,
    ...(object ? { object } : {}),
    ...(operation === "UPDATE" && object ? { oldObject: object } : {}),
  } as AdmissionRequest;
}

/** The JSON patch of an allowing answer (it fails the test unless the answer allows with a JSONPatch). */
export function patchOf(response: AdmissionResponse): unknown {
  assert.equal(response.allowed, true);
  assert.equal(response.patchType, "JSONPatch");
  return JSON.parse(atob(response.patch ?? ""));
}
