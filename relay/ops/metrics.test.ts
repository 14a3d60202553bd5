import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { FakeClock } from "../../test/support/fake-clock.ts";
import { eventsQueueKey, parentQueueKey, type QueueKey } from "../queue/key.ts";
import type { RelayEngine } from "../engine.ts";
import { registerGauges } from "./gauges.ts";
import { KubeClient } from "../kube/client.ts";
import { startOpsServer } from "../front/servers.ts";
import { KUBERNETES_METRICS, RELAY_METRICS } from "./metric-families.ts";
import { Metrics } from "./metrics.ts";
import { processRegistry } from "./process-metrics.ts";
import { WorkQueue, type Outcome } from "../queue/workqueue.ts";

const ALL_FAMILIES = { ...RELAY_METRICS, ...KUBERNETES_METRICS };

/** A Metrics with every family recorded once, as a busy relay has them. */
function busyMetrics(): Metrics {
  const metrics = new Metrics();
  registerGauges(metrics, { queue: { depth: 3, retrying: 2, inFlight: 1 }, leading: () => true, cachedObjects: () => 42, workerUp: () => true });
  metrics.inc("edgeloop_reconciles_total", { controller: "c", result: "ok" });
  metrics.inc("edgeloop_apply_errors_total", { controller: "c", action: "create" });
  metrics.inc("edgeloop_watch_events_total", { kind: "Pod", type: "ADDED" }, 2);
  metrics.inc("edgeloop_outbox_entries_total", { controller: "c" });
  metrics.inc("edgeloop_api_requests_total", { api: "a", code: "200" });
  metrics.observe("c", 0.02);
  metrics.workqueue.add(parentQueueKey("c", "default/p"));
  metrics.workqueue.get(parentQueueKey("c", "default/p"));
  metrics.workqueue.done(parentQueueKey("c", "default/p"), { kind: "done" });
  metrics.restClient.request("GET", "127.0.0.1:6443", "200");
  metrics.restClient.latency("GET", "127.0.0.1:6443", 0.03);
  metrics.leaderElection.leaderOn("edgeloop-relay");
  return metrics;
}

/** A bucket's `le` as a number. */
function bound(le: string): number {
  return le === "+Inf" ? Infinity : Number(le);
}

/** The samples of a text, without comments and blank lines. */
function samples(text: string): string[] {
  return text.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
}

test("/metrics: every family has its own HELP saying what it counts, and a TYPE, before its samples", async (t) => {
  const metrics = busyMetrics();
  const engine = { metrics, ready: () => true } as unknown as RelayEngine;
  const ops = await startOpsServer(engine, 0, "127.0.0.1");
  t.after(() => ops.close());
  const response = await fetch(`http://127.0.0.1:${ops.port}/metrics`);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  const lines = text.trimEnd().split("\n");
  const help = new Map(lines.filter((l) => l.startsWith("# HELP ")).map((l) => [l.split(" ")[2] ?? "", l.split(" ").slice(3).join(" ")]));
  const processFamilies = processRegistry().getMetricsAsArray().map((m) => m.name);
  assert.deepEqual([...help.keys()].sort(), [...Object.keys(ALL_FAMILIES), ...processFamilies].sort(), "one HELP per declared family, and prom-client's process families");
  assert.equal(new Set(help.values()).size, help.size, "no two families share a HELP text");
  for (const [name, text] of [...help].filter(([name]) => name in ALL_FAMILIES)) {
    assert.doesNotMatch(text, /^edgeloop relay (counter|gauge)$/, `${name} has a generic HELP`);
    assert.ok(text.length >= 15, `${name}: "${text}" says too little`);
    assert.equal(text.replace(/\\n/g, "\n").replace(/\\\\/g, "\\"), ALL_FAMILIES[name as keyof typeof ALL_FAMILIES].help, `${name}: HELP as declared`);
  }
  const types = new Map(lines.filter((l) => l.startsWith("# TYPE ")).map((l) => [l.split(" ")[2] ?? "", l.split(" ")[3]]));
  for (const [name, family] of Object.entries(ALL_FAMILIES)) assert.equal(types.get(name), family.type, `${name}: TYPE`);
  // Each sample belongs to a family whose HELP and TYPE came before it.
  const seen = new Set<string>();
  for (const line of lines) {
    if (line.startsWith("# TYPE ")) seen.add(line.split(" ")[2] ?? "");
    if (line.startsWith("#") || line === "") continue;
    const family = (line.split(/[{ ]/)[0] ?? "").replace(/_(bucket|sum|count)$/, "");
    assert.ok(seen.has(family) && help.has(family), `sample before its family's HELP/TYPE: ${line}`);
  }
  assert.match(text, /^edgeloop_queue_depth 3$/m);
  assert.match(text, /^edgeloop_queue_waiting_retry 2$/m);
  assert.match(text, /^edgeloop_leader 1$/m);
  assert.match(text, /^edgeloop_worker_up 1$/m);
  assert.match(text, /^edgeloop_watch_events_total\{kind="Pod",type="ADDED"\} 2$/m);
  assert.match(text, /^edgeloop_reconcile_duration_seconds_count\{controller="c"\} 1$/m);
  assert.match(text, /^process_resident_memory_bytes [1-9]\d*$/m);
  assert.match(text, /^nodejs_heap_size_used_bytes [1-9]\d*$/m);
  assert.match(text, /^workqueue_adds_total\{name="c"\} 1$/m);
  assert.match(text, /^controller_runtime_reconcile_total\{controller="c",result="success"\} 1$/m);
  assert.match(text, /^rest_client_requests_total\{code="200",method="GET",host="127\.0\.0\.1:6443"\} 1$/m);
  assert.match(text, /^rest_client_request_duration_seconds_bucket\{le="0\.025",verb="GET",host="127\.0\.0\.1:6443"\} 0$/m);
  assert.match(text, /^rest_client_request_duration_seconds_bucket\{le="0\.1",verb="GET",host="127\.0\.0\.1:6443"\} 1$/m);
  assert.match(text, /^leader_election_master_status\{name="edgeloop-relay"\} 1$/m);
});

test("a family's samples stay together even when another family's name extends it", async () => {
  const families = samples(await busyMetrics().render()).map((l) => (l.split(/[{ ]/)[0] ?? "").replace(/_(bucket|sum|count)$/, ""));
  const runs = families.filter((f, i) => f !== families[i - 1]);
  assert.equal(new Set(runs).size, runs.length, `interleaved families: ${runs.join(", ")}`);
});

test("the work queue's keys count per controller under client-go's workqueue names and buckets", async () => {
  const clock = new FakeClock();
  const metrics = new Metrics({ now: () => clock.now() });
  const queue = new WorkQueue<QueueKey, unknown>({ concurrency: 1, clock, observer: metrics.workqueue, baseDelayMs: 1000 });
  const outcomes: Outcome[] = [{ kind: "done" }, { kind: "retry" }, { kind: "done", requeueAfterMs: 60_000 }, { kind: "done" }];
  let next = 0;
  queue.start({
    process: async () => {
      await new Promise<void>((resolve) => clock.setTimeout(resolve, 20));
      return outcomes[next++] ?? { kind: "done" };
    },
  });
  queue.add(parentQueueKey("mirror", "default/a"));
  queue.add(parentQueueKey("mirror", "default/b"));
  queue.add(eventsQueueKey("gang"));
  await clock.advance(10);
  // One in flight for 10 ms (mirror a), two waiting.
  let text = await metrics.render();
  assert.match(text, /^workqueue_depth\{name="mirror"\} 1$/m);
  assert.match(text, /^workqueue_depth\{name="gang"\} 1$/m);
  assert.match(text, /^workqueue_unfinished_work_seconds\{name="mirror"\} 0\.01$/m);
  assert.match(text, /^workqueue_longest_running_processor_seconds\{name="mirror"\} 0\.01$/m);
  assert.match(text, /^workqueue_unfinished_work_seconds\{name="gang"\} 0$/m);
  await clock.advance(100);
  text = await metrics.render();
  // a: success; b: error (retried after 1 s); gang: requeue_after (a retry, in client-go's count).
  assert.match(text, /^workqueue_adds_total\{name="mirror"\} 2$/m);
  assert.match(text, /^workqueue_adds_total\{name="gang"\} 1$/m);
  assert.match(text, /^workqueue_retries_total\{name="mirror"\} 1$/m);
  assert.match(text, /^workqueue_retries_total\{name="gang"\} 1$/m);
  assert.match(text, /^workqueue_depth\{name="mirror"\} 0$/m);
  assert.match(text, /^controller_runtime_reconcile_total\{controller="mirror",result="success"\} 1$/m);
  assert.match(text, /^controller_runtime_reconcile_total\{controller="mirror",result="error"\} 1$/m);
  assert.match(text, /^controller_runtime_reconcile_total\{controller="mirror",result="requeue"\} 0$/m);
  assert.match(text, /^controller_runtime_reconcile_total\{controller="gang",result="requeue_after"\} 1$/m);
  assert.match(text, /^controller_runtime_reconcile_errors_total\{controller="mirror"\} 1$/m);
  assert.match(text, /^controller_runtime_reconcile_errors_total\{controller="gang"\} 0$/m);
  assert.match(text, /^controller_runtime_reconcile_time_seconds_count\{controller="mirror"\} 2$/m);
  assert.match(text, /^controller_runtime_reconcile_time_seconds_sum\{controller="mirror"\} 0\.04$/m);
  // b waited for a (20 ms), gang for a and b (40 ms): 0.02 s + 0.04 s + a's 0 s.
  assert.match(text, /^workqueue_queue_duration_seconds_count\{name="mirror"\} 2$/m);
  assert.match(text, /^workqueue_queue_duration_seconds_sum\{name="gang"\} 0\.04$/m);
  assert.match(text, /^workqueue_work_duration_seconds_sum\{name="gang"\} 0\.02$/m);
  // The retried key comes back after its backoff: added again, counted again.
  await clock.advance(1_000);
  text = await metrics.render();
  assert.match(text, /^workqueue_adds_total\{name="mirror"\} 3$/m);
  assert.match(text, /^controller_runtime_reconcile_total\{controller="mirror",result="success"\} 2$/m);
  await queue.stop();
  const le = (family: string): number[] => [...text.matchAll(new RegExp(`^${family}_bucket\\{le="([^"]+)",name="mirror"\\}`, "gm"))].map((m) => bound(m[1] ?? ""));
  assert.deepEqual(le("workqueue_queue_duration_seconds"), [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000, Infinity]);
  assert.deepEqual(le("workqueue_work_duration_seconds"), [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000, Infinity]);
  const reconcileLe = [...text.matchAll(/^controller_runtime_reconcile_time_seconds_bucket\{le="([^"]+)",controller="mirror"\}/gm)].map((m) => bound(m[1] ?? ""));
  assert.equal(reconcileLe.length, 41);
  assert.deepEqual([reconcileLe[0], reconcileLe[17], reconcileLe[39], reconcileLe[40]], [0.005, 1, 60, Infinity]);
});

test("a terminal failure is done for the queue and an error for controller-runtime's counters", async () => {
  const metrics = new Metrics();
  const key = parentQueueKey("mirror", "default/p");
  metrics.workqueue.add(key);
  metrics.workqueue.get(key);
  metrics.workqueue.done(key, { kind: "done", terminal: true });
  const text = await metrics.render();
  assert.match(text, /^controller_runtime_reconcile_total\{controller="mirror",result="error"\} 1$/m);
  assert.match(text, /^controller_runtime_reconcile_errors_total\{controller="mirror"\} 1$/m);
});

test("leader election: 0 as a standby, 1 while leading, under the lease's name", async () => {
  const metrics = new Metrics();
  metrics.leaderElection.leaderOff("edgeloop-relay");
  assert.match(await metrics.render(), /^leader_election_master_status\{name="edgeloop-relay"\} 0$/m);
  metrics.leaderElection.leaderOn("edgeloop-relay");
  assert.match(await metrics.render(), /^leader_election_master_status\{name="edgeloop-relay"\} 1$/m);
});

test("each relay has its own registry: two in one process count apart", async () => {
  const a = new Metrics();
  const b = new Metrics();
  a.inc("edgeloop_outbox_entries_total", { controller: "c" });
  b.restClient.request("POST", "h:1", "<error>");
  assert.match(await a.render(), /^edgeloop_outbox_entries_total\{controller="c"\} 1$/m);
  assert.doesNotMatch(await b.render(), /^edgeloop_outbox_entries_total\{/m);
  assert.match(await b.render(), /^rest_client_requests_total\{code="<error>",method="POST",host="h:1"\} 1$/m);
  assert.doesNotMatch(await a.render(), /^rest_client_requests_total\{/m);
});

test("a series is a family and values for its labels: escaped once, by the exposition; undeclared names and labels are refused", async () => {
  const metrics = new Metrics();
  metrics.inc("edgeloop_relists_total", { informer: 'ConfigMap.v1|a"b\\c\n|', reason: "forced" });
  assert.match(await metrics.render(), /^edgeloop_relists_total\{informer="ConfigMap\.v1\|a\\"b\\\\c\\n\|",reason="forced"\} 1$/m);
  // @ts-expect-error -- not a declared family
  assert.throws(() => metrics.inc("edgeloop_nope_total", {}), /declared/);
  // @ts-expect-error -- a label the family does not declare
  assert.throws(() => metrics.inc("edgeloop_relists_total", { informer: "x", nope: "y" }));
});

test("rest_client_requests_total counts every KubeClient request by code, method and host; no answer is <error>", async (t) => {
  const server = createServer((request, response) => {
    request.resume();
    const status = request.method === "DELETE" ? 404 : 200;
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(status === 200 ? { ok: true } : { kind: "Status", reason: "NotFound", message: "gone" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.close());
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const metrics = new Metrics();
  const clientOf = (server: string): KubeClient => {
    const kc = new KubeConfig();
    kc.loadFromOptions({ clusters: [{ name: "c", server, skipTLSVerify: true }], users: [{ name: "u" }], contexts: [{ name: "x", cluster: "c", user: "u" }], currentContext: "x" });
    return new KubeClient(kc, { requests: metrics.restClient, retryAfterRetries: 0 });
  };
  const client = clientOf(`http://${host}`);
  await client.request("GET", "/api/v1/namespaces/default/configmaps");
  await client.request("GET", "/api/v1/namespaces/default/configmaps/a");
  await assert.rejects(client.request("DELETE", "/api/v1/namespaces/default/configmaps/a"));
  client.countRequest("GET", "200");
  // A port nothing listens on: no answer.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const deadHost = `127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  await assert.rejects(clientOf(`http://${deadHost}`).request("GET", "/api/v1/pods"));
  const text = await metrics.render();
  assert.match(text, new RegExp(`^rest_client_requests_total\\{code="200",method="GET",host="${host}"\\} 3$`, "m"));
  assert.match(text, new RegExp(`^rest_client_requests_total\\{code="404",method="DELETE",host="${host}"\\} 1$`, "m"));
  assert.match(text, new RegExp(`^rest_client_requests_total\\{code="<error>",method="GET",host="${deadHost}"\\} 1$`, "m"));
  // rest_client_request_duration_seconds: each call of KubeClient.request, by verb and host; a watch (countRequest) is not timed, as in client-go.
  assert.match(text, new RegExp(`^rest_client_request_duration_seconds_count\\{verb="GET",host="${host}"\\} 2$`, "m"));
  assert.match(text, new RegExp(`^rest_client_request_duration_seconds_count\\{verb="DELETE",host="${host}"\\} 1$`, "m"));
  assert.match(text, new RegExp(`^rest_client_request_duration_seconds_count\\{verb="GET",host="${deadHost}"\\} 1$`, "m"));
});

test("the standard process metrics: unlabelled for a relay alone in its process, labelled shared_with where it is not; never the relay's own families", async () => {
  const alone = await new Metrics().render();
  for (const family of ["process_cpu_seconds_total", "process_start_time_seconds", "process_resident_memory_bytes", "process_open_fds", "nodejs_heap_size_used_bytes"]) {
    assert.match(alone, new RegExp(`^# TYPE ${family} `, "m"), `${family} declared`);
    assert.match(alone, new RegExp(`^${family} [0-9.e+]+$`, "m"), `${family}: one unlabelled series`);
  }
  const startedAt = Number(/^process_start_time_seconds (\S+)$/m.exec(alone)?.[1]);
  assert.ok(Math.abs(startedAt - (Date.now() - performance.now()) / 1000) < 2, `process_start_time_seconds ${startedAt} is this process's start`);
  const shared = new Metrics({ processLabels: { shared_with: "sim" } });
  shared.inc("edgeloop_outbox_entries_total", { controller: "c" });
  const text = await shared.render();
  assert.match(text, /^process_cpu_seconds_total\{shared_with="sim"\} [0-9.e+]+$/m);
  assert.match(text, /^process_resident_memory_bytes\{shared_with="sim"\} [1-9]\d*$/m);
  assert.doesNotMatch(text, /^process_resident_memory_bytes [0-9]/m, "no unlabelled process series beside the labelled ones");
  assert.match(text, /^edgeloop_outbox_entries_total\{controller="c"\} 1$/m, "the relay's own families carry no process label");
  assert.equal(processRegistry({ shared_with: "sim" }), processRegistry({ shared_with: "sim" }), "one set of process collectors per label set, however many relays");
});
