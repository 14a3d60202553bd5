/**
 * The sim's speed: creates/s over HTTP, list latency at 10,000 pods, watch fan-out to
 * 10 watchers at 3,000 events/s. Built-in controllers are off: this measures the API.
 */
import { Agent, request } from "node:http";
import type { Benchmark } from "../../scripts/bench.ts";
import { startSim } from "../../sim/index.ts";

const PODS = 10_000;
const CONCURRENCY = 32;
const WATCHERS = 10;
const EVENT_RATE = 3_000;
const EVENT_SECONDS = 3;

function pod(i: number): string {
  return JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: `bench-${i}`, namespace: "default", labels: { app: "bench", shard: String(i % 16) } }, spec: { containers: [{ name: "c", image: "busybox" }] } });
}

/** POST with keep-alive; resolves with the status code. */
function post(agent: Agent, url: URL, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

const bench: Benchmark = {
  name: "sim",
  async run(report, progress) {
    const sim = await startSim({ port: 0, controllers: false, historySize: 100_000 });
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    try {
      progress(`creating ${PODS} pods over HTTP, ${CONCURRENCY} at a time`);
      const url = new URL(`${sim.url}/api/v1/namespaces/default/pods`);
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < PODS) {
            const status = await post(agent, url, pod(next++));
            if (status !== 201) throw new Error(`create answered ${status}`);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      report({ metric: "creates_per_second", value: Math.round(PODS / seconds), unit: "1/s", target: ">= 3000" });

      progress("listing 10,000 pods (JSON), 10 times");
      const times: number[] = [];
      for (let i = 0; i < 10; i++) {
        const t0 = performance.now();
        const response = await fetch(`${sim.url}/api/v1/pods`);
        const list = (await response.json()) as { items: unknown[] };
        times.push(performance.now() - t0);
        if (list.items.length !== PODS) throw new Error(`listed ${list.items.length} pods`);
      }
      times.sort((a, b) => a - b);
      report({ metric: "list_10k_pods_p50_ms", value: Math.round(percentile(times, 50)), unit: "ms", target: "< 200" });
      report({ metric: "list_10k_pods_max_ms", value: Math.round(times[times.length - 1] ?? 0), unit: "ms" });

      progress(`watch fan-out: ${WATCHERS} watchers, ${EVENT_RATE} events/s for ${EVENT_SECONDS} s`);
      const from = sim.cluster.store.resourceVersion;
      const sentAt = new Map<number, number>();
      const lags: number[] = [];
      const received = new Array<number>(WATCHERS).fill(0);
      const total = EVENT_RATE * EVENT_SECONDS;
      const controllers = Array.from({ length: WATCHERS }, () => new AbortController());
      const watchers = controllers.map(async (abort, w) => {
        const response = await fetch(`${sim.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${from}`, { signal: abort.signal });
        const reader = response.body?.getReader();
        const decoder = new TextDecoder();
        let buffered = "";
        while (reader && received[w] !== total) {
          const { value, done } = await reader.read();
          if (done) break;
          buffered += decoder.decode(value, { stream: true });
          let newline = buffered.indexOf("\n");
          while (newline >= 0) {
            const line = buffered.slice(0, newline);
            buffered = buffered.slice(newline + 1);
            const rv = Number(/"resourceVersion":"(\d+)"/.exec(line)?.[1]);
            const at = sentAt.get(rv);
            if (at !== undefined) lags.push(performance.now() - at);
            received[w] = (received[w] ?? 0) + 1;
            newline = buffered.indexOf("\n");
          }
        }
        abort.abort();
      });
      const paceStart = performance.now();
      for (let i = 0; i < total; i++) {
        const due = paceStart + (i * 1000) / EVENT_RATE;
        const wait = due - performance.now();
        if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
        const created = await sim.cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `fan-${i}`, namespace: "default" } });
        sentAt.set(Number(created.metadata.resourceVersion), performance.now());
      }
      const achieved = total / ((performance.now() - paceStart) / 1000);
      await Promise.race([Promise.all(watchers), new Promise((resolve) => setTimeout(resolve, 10_000))]);
      controllers.forEach((c) => c.abort());
      lags.sort((a, b) => a - b);
      report({ metric: "watch_fanout_event_rate", value: Math.round(achieved), unit: "1/s", target: ">= 3000" });
      report({ metric: "watch_fanout_delivered_ratio", value: Math.min(...received) / total, unit: "ratio", target: "= 1" });
      report({ metric: "watch_fanout_lag_p99_ms", value: Math.round(percentile(lags, 99) * 10) / 10, unit: "ms" });
      report({ metric: "watch_fanout_lag_max_ms", value: Math.round((lags[lags.length - 1] ?? 0) * 10) / 10, unit: "ms" });
    } finally {
      agent.destroy();
      await sim.stop();
    }
  },
};
export default bench;
