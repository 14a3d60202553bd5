/**
 * Test support: a deterministic large cluster (1,000 nodes, a quarter of them tainted GPU
 * nodes) with other schedulers' pods, running gangs of ours and 10,000 pending pods in
 * groups of 8, for the scale test and for timing a pass by hand.
 */
import type { PassInput } from "../pass.ts";
import type { NodeRecord, PodRecord } from "../records.ts";
import type { Allocation } from "../view.ts";
import { at, node, pod } from "./build.ts";

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Sizes of the generated cluster. */
export interface ScaleOptions {
  readonly nodes?: number;
  readonly pendingPods?: number;
  readonly groupSize?: number;
  readonly seed?: number;
}

const GPU_TAINT = { key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" };

/** A pass input of the given size; `now` is `at(10_000)`. */
export function scaleInput(options: ScaleOptions = {}): PassInput {
  const next = random(options.seed ?? 42);
  const pick = (n: number): number => Math.floor(next() * n);
  const nodeCount = options.nodes ?? 1000;
  const groupSize = options.groupSize ?? 8;
  const nodes: NodeRecord[] = Array.from({ length: nodeCount }, (_, i) =>
    i % 4 === 3
      ? node(`gpu-${String(i).padStart(5, "0")}`, { cpu: "64", memory: "256Gi", gpu: "8", labels: { accelerator: "a100" }, taints: [GPU_TAINT] })
      : node(`cpu-${String(i).padStart(5, "0")}`, { cpu: "32", memory: "128Gi", labels: { zone: `z${i % 3}` } }),
  );
  const pods: PodRecord[] = [];
  for (let i = 0; i < nodeCount * 2; i += 1) {
    const host = nodes[pick(nodeCount)] as NodeRecord;
    pods.push(pod(`web-${i}`, { namespace: "web", scheduler: "default-scheduler", nodeName: host.name, cpu: "2", memory: "4Gi", tolerations: [{ operator: "Exists" }] }));
  }
  const allocations: Allocation[] = [];
  for (let g = 0; g < nodeCount / 10; g += 1) {
    const members = Array.from({ length: groupSize }, (_, i) => pod(`run-${g}-${i}`, { namespace: "batch", group: `run-${g}`, size: groupSize, cpu: "4", memory: "8Gi", nodeName: (nodes[pick(nodeCount)] as NodeRecord).name, tolerations: [{ operator: "Exists" }] }));
    pods.push(...members);
    allocations.push({ group: `batch/run-${g}`, startedAt: at(0), endsAt: g % 5 === 0 ? undefined : at(10_000 + 60 * (1 + pick(120))), pods: members.map((p) => ({ uid: p.uid, node: p.nodeName ?? "", request: p.request })) });
  }
  const groups = Math.floor((options.pendingPods ?? 10_000) / groupSize);
  for (let g = 0; g < groups; g += 1) {
    const gpu = g % 5 === 0;
    const cpu = 1 + pick(8);
    const common = {
      namespace: `team-${g % 7}`,
      group: `job-${g}`,
      size: groupSize,
      priority: pick(4) === 0 ? 100 : 0,
      created: pick(5000),
      deadline: pick(3) === 0 ? undefined : 60 * (1 + pick(240)),
      memory: `${1 + pick(16)}Gi`,
    };
    for (let i = 0; i < groupSize; i += 1) {
      const big = i === 0 ? 2 : 1;
      pods.push(
        gpu
          ? pod(`job-${g}-${i}`, { ...common, cpu: String(cpu * big), gpu: String(1 + pick(8)), tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }], nodeSelector: { accelerator: "a100" } })
          : pod(`job-${g}-${i}`, { ...common, cpu: String(cpu * big), nodeSelector: g % 3 === 0 ? { zone: `z${g % 3}` } : undefined }),
      );
    }
  }
  return { now: at(10_000), nodes, pods, allocations, defaultDurationSeconds: 3600 };
}
