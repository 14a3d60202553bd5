/**
 * NerveX's replicas POST retried, in real workerd (issue 28, findings 1 and 2): the
 * Worker's answer to the relay lost (the client gets a 503 and sends the request again),
 * the relay killed part way through applying it, a partial create answered 500 and
 * retried. Each retry must converge on what the first attempt asked: its reply names
 * only pods that exist or that the retry's own actions create, and nothing is created
 * twice or beside what a reply names.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ApiResponse, KubeObject } from "../../protocol/index.ts";
import { startWorker, type RunningWorker } from "../../scripts/lib/worker.ts";
import { existing, mockJob, related, type Existing } from "../../functions/controllers/nervex/replicas/testing/world.ts";
import { SECRET, signed } from "./client.ts";

let worker: RunningWorker;
before(async () => {
  worker = await startWorker({ secret: SECRET });
});
after(async () => {
  await worker.stop();
});

type Envelope = { success: boolean; data: { collectors: string[]; learners: string[] } };

/** The pods and Services of the first `count` replicas an answer creates, as the API server would hold them once applied (`withService`: their Services too). */
function applied(answer: ApiResponse, names: readonly string[], withService: (name: string) => boolean): Existing[] {
  const stored = (object: KubeObject): KubeObject => ({ ...object, metadata: { ...object.metadata, uid: `${object.metadata.name ?? ""}-uid`, resourceVersion: "9", creationTimestamp: "2026-11-27T12:00:00Z" } });
  const of = (kind: string, name: string): KubeObject | undefined => answer.actions.flatMap((a) => (a.type === "create" && a.object.kind === kind && a.object.metadata.name === name ? [a.object] : []))[0];
  return names.map((name) => {
    const pod = of("Pod", name);
    const service = of("Service", name);
    assert.ok(pod && service, `the answer creates ${name}`);
    // A Service not created yet is left out below (a related list holds what exists).
    return { pod: stored(pod), service: withService(name) ? stored(service) : { ...stored(service), metadata: { ...service.metadata, name: "" } } };
  });
}

/** Drops the placeholder Services of replicas whose Service was not applied. */
function withoutPlaceholders(objects: Record<string, KubeObject[]>): Record<string, KubeObject[]> {
  return { ...objects, "Service.v1": (objects["Service.v1"] ?? []).filter((s) => s.metadata.name !== "") };
}

const podName = (url: string): string => url.split(".")[0] ?? "";

function createdNames(answer: ApiResponse, kind: string): string[] {
  return answer.actions.flatMap((a) => (a.type === "create" && a.object.kind === kind ? [a.object.metadata.name ?? ""] : [])).sort();
}

/** One POST forwarded by the relay (`id`: the relay's request id, fresh per attempt). */
async function post(namespace: string, id: string, body: unknown, objects: Record<string, KubeObject[]>): Promise<ApiResponse> {
  const request = { id, method: "POST", path: "/v1alpha1/replicas", query: {}, body: JSON.stringify(body), related: objects, now: new Date().toISOString() };
  const response = await signed(`${worker.url}/v1/api/replicas`, { body: request });
  assert.equal(response.status, 200, namespace);
  return (await response.json()) as ApiResponse;
}

function world(namespace: string): { job: ReturnType<typeof mockJob>; coordinator: Existing; body: unknown } {
  const job = mockJob("nervexjob-example", namespace, `${namespace}-job-uid`);
  const coordinator = existing(job, "coordinator", "");
  return { job, coordinator, body: { namespace, coordinator: "nervexjob-example-coordinator", collectors: { replicas: 10 } } };
}

test("the Worker's answer lost (the client saw a 503): the retry creates every pod its reply names", async () => {
  const { job, coordinator, body } = world("lost-answer");
  const first = await post("lost-answer", "attempt-1", body, related({ pods: [coordinator], jobs: [job] }));
  assert.equal(createdNames(first, "Pod").length, 10);
  // The relay never received `first`: nothing was applied, nothing released. The client sends the request again.
  const retry = await post("lost-answer", "attempt-2", body, related({ pods: [coordinator], jobs: [job] }));
  const urls = (retry.body as Envelope).data.collectors;
  assert.equal(retry.status, 200);
  assert.equal(urls.length, 10);
  assert.deepEqual(createdNames(retry, "Pod"), urls.map(podName).sort(), "every URL of the reply is a pod the retry creates");
  assert.deepEqual(createdNames(retry, "Service"), urls.map(podName).sort());
  assert.deepEqual(urls, (first.body as Envelope).data.collectors, "the same replicas the first attempt named");
});

test("the relay killed mid-apply (4 replicas and 1 pod without its Service exist, nothing released): the retry creates exactly the rest", async () => {
  const { job, coordinator, body } = world("killed-relay");
  const first = await post("killed-relay", "attempt-1", body, related({ pods: [coordinator], jobs: [job] }));
  const names = (first.body as Envelope).data.collectors.map(podName);
  const made = applied(first, names.slice(0, 5), (name) => name !== names[4]);
  const retry = await post("killed-relay", "attempt-2", body, withoutPlaceholders(related({ pods: [coordinator, ...made], jobs: [job] })));
  const urls = (retry.body as Envelope).data.collectors;
  assert.deepEqual(urls, (first.body as Envelope).data.collectors, "the reply names the first attempt's 10 replicas");
  assert.deepEqual(createdNames(retry, "Pod"), names.slice(5).sort(), "the 5 missing pods, and no other");
  assert.deepEqual(createdNames(retry, "Service"), names.slice(4).sort(), "the 6 missing Services, and no other");
});

test("a partial create answered 500 (its unapplied actions released) and retried: 10 collectors in all, each in the reply", async () => {
  const { job, coordinator, body } = world("partial-create");
  const first = await post("partial-create", "attempt-1", body, related({ pods: [coordinator], jobs: [job] }));
  const names = (first.body as Envelope).data.collectors.map(podName);
  const made = applied(first, names.slice(0, 3), () => true);
  // The relay hands back the release tokens of what it did not apply, as it does after a failed create.
  const tokens = [...new Map(first.actions.flatMap((a) => (a.release ? [[a.release.key, a.release] as const] : []))).values()];
  if (tokens.length > 0) await signed(`${worker.url}/v1/claims/release`, { body: { claims: tokens, now: new Date().toISOString() } });
  const retry = await post("partial-create", "attempt-2", body, related({ pods: [coordinator, ...made], jobs: [job] }));
  const urls = (retry.body as Envelope).data.collectors;
  const all = new Set([...names.slice(0, 3), ...createdNames(retry, "Pod")]);
  assert.equal(all.size, 10, `10 collectors exist once the retry is applied, not ${all.size}`);
  assert.deepEqual(urls.map(podName).sort(), [...all].sort(), "every collector is in the reply");
});

test("a DELETE whose answer was lost: the retry gets the same reply and sends the same deletes again (each is gone once applied), never a reply for deletes not done", async () => {
  const { job, coordinator } = world("lost-delete");
  const body = { namespace: "lost-delete", coordinator: "nervexjob-example-coordinator", collectors: { replicas: 2 } };
  const replicas = ["aaaaa", "bbbbb", "ccccc"].map((suffix, i) => existing(job, "collector", `nervexjob-example-collector-${suffix}`, `2026-11-27T10:0${i}:00Z`));
  const objects = related({ pods: [coordinator, ...replicas], jobs: [job] });
  const send = async (id: string): Promise<ApiResponse> => {
    const request = { id, method: "DELETE", path: "/v1alpha1/replicas", query: {}, body: JSON.stringify(body), related: objects, now: new Date().toISOString() };
    return (await (await signed(`${worker.url}/v1/api/replicas`, { body: request })).json()) as ApiResponse;
  };
  const deletes = (answer: ApiResponse): string[] => answer.actions.flatMap((a) => (a.type === "delete" ? [`${a.target.kind}/${a.target.name}`] : [])).sort();
  const first = await send("delete-1");
  assert.deepEqual(deletes(first), ["Pod/nervexjob-example-collector-bbbbb", "Pod/nervexjob-example-collector-ccccc", "Service/nervexjob-example-collector-bbbbb", "Service/nervexjob-example-collector-ccccc"], "the two newest");
  // The relay never received `first`; the client sends the request again.
  const retry = await send("delete-2");
  assert.deepEqual(retry.body, first.body);
  assert.deepEqual(deletes(retry), deletes(first), "the same deletes, so the reply is given only once they are applied");
});

test("a POST /failed whose answer was lost: the retry gets the same replacements, their creates idempotent", async () => {
  const { job, coordinator } = world("lost-failed");
  const failed = existing(job, "collector", "nervexjob-example-collector-fffff");
  const body = { namespace: "lost-failed", coordinator: "nervexjob-example-coordinator", collectors: ["nervexjob-example-collector-fffff"] };
  const send = async (id: string): Promise<ApiResponse> => {
    const request = { id, method: "POST", path: "/v1alpha1/replicas/failed", query: {}, body: JSON.stringify(body), related: related({ pods: [coordinator, failed], jobs: [job] }), now: new Date().toISOString() };
    return (await (await signed(`${worker.url}/v1/api/replicas`, { body: request })).json()) as ApiResponse;
  };
  const first = await send("failed-1");
  const retry = await send("failed-2");
  assert.deepEqual(retry.body, first.body);
  assert.deepEqual(retry.actions, first.actions);
  assert.equal(createdNames(retry, "Pod").length, 1);
  assert.ok(retry.actions.every((a) => a.type === "delete" || (a.type === "create" && a.ifAbsent === true)));
});
