import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../../protocol/index.ts";
import { ApiError } from "../../contract.ts";
import { Registry } from "../../registry/registry.ts";
import { Store } from "../../store/store.ts";
import { POD } from "../kinds/pods.ts";
import type { Write } from "../write.ts";
import { CREATE, DELETE, UPDATE } from "./chain.ts";
import { admit, admitDelete, type AdmissionStep } from "./step.ts";

const write: Write = {
  operation: "CREATE",
  resource: POD.resource,
  kind: POD,
  version: "v1",
  apiVersion: "v1",
  subresource: "",
  namespace: "default",
  name: "p",
  body: null,
  oldObject: null,
  uid: "u",
  dryRun: false,
  server: { store: new Store(10), registry: new Registry([POD.resource]), now: () => new Date(0), allocateIp: () => "10.96.0.2", resolveService: undefined, defaultTolerations: { notReadySeconds: 300, unreachableSeconds: 300 } },
};

const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" } } as KubeObject;

/** A step that appends its name to the draft's `seen` annotation. */
function marking(name: string, later = false): AdmissionStep {
  const mark = (draft: KubeObject): KubeObject => ({ ...draft, metadata: { ...draft.metadata, annotations: { seen: `${draft.metadata.annotations?.seen ?? ""}${name}` } } });
  return { name, admit: (draft) => (later ? Promise.resolve(mark(draft)) : mark(draft)) };
}

test("a chain that calls out nowhere runs its steps in order and answers without a promise", () => {
  const admitted = admit([marking("a"), { name: "idle" }, marking("b")], pod, write);
  assert.ok(!(admitted instanceof Promise));
  assert.equal(admitted.metadata.annotations?.seen, "ab");
});

test("a step that answers with a promise is awaited before the next step runs", async () => {
  const admitted = admit([marking("a"), marking("b", true), marking("c")], pod, write);
  assert.ok(admitted instanceof Promise);
  assert.equal((await admitted).metadata.annotations?.seen, "abc");
});

test("a refusal stops the chain: later steps do not run", async () => {
  const refused = new ApiError(403, "Forbidden", "no");
  let ran = false;
  const refuse: AdmissionStep = { name: "refuse", admit: () => Promise.reject(refused), admitDelete: () => Promise.reject(refused) };
  const after: AdmissionStep = {
    name: "after",
    admit: (draft) => {
      ran = true;
      return draft;
    },
    admitDelete: () => {
      ran = true;
    },
  };
  await assert.rejects(async () => admit([refuse, after], pod, write), refused);
  await assert.rejects(async () => admitDelete([refuse, after], write), refused);
  assert.equal(ran, false);
});

test("the chains run kube-apiserver's plugins in the sim's order", () => {
  const names = (steps: readonly AdmissionStep[]): string[] => steps.map((s) => s.name);
  assert.deepEqual(names(CREATE), ["NamespaceLifecycle", "Defaulting", "Priority", "DefaultTolerationSeconds", "MutatingAdmissionWebhook", "ValidatingAdmissionWebhook", "Validation", "Priority (validation)"]);
  assert.deepEqual(names(UPDATE), ["Priority", "DefaultTolerationSeconds", "Defaulting", "MutatingAdmissionWebhook", "ValidatingAdmissionWebhook", "Validation", "Priority (validation)"]);
  assert.deepEqual(names(DELETE), ["NamespaceLifecycle", "Protected", "Preconditions", "ValidatingAdmissionWebhook"]);
});
