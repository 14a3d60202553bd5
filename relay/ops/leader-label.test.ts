import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeClient } from "../kube/client.ts";
import { StatusError } from "../../protocol/index.ts";
import { LEADER_LABEL, LeaderPodLabel } from "./leader-label.ts";

const POD = { namespace: "edgeloop", name: "edgeloop-relay-7d9f-abcde" };
const PATH = "/api/v1/namespaces/edgeloop/pods/edgeloop-relay-7d9f-abcde";
const FAST = { firstMs: 1, maxMs: 4 };

/** A fake API server holding one pod's labels: each PATCH merges (null removes); `failures` answers 500 that many times first. */
function fakePod(failures = 0): { client: Pick<KubeClient, "request">; labels: Record<string, string>; sent: string[] } {
  const labels: Record<string, string> = { "app.kubernetes.io/name": "edgeloop-relay" };
  const sent: string[] = [];
  let failing = failures;
  const client = {
    request: async (method: string, path: string, options: { body?: unknown; contentType?: string } = {}): Promise<unknown> => {
      const patch = (options.body as { metadata: { labels: Record<string, string | null> } }).metadata.labels;
      sent.push(`${method} ${path} ${options.contentType ?? ""} ${JSON.stringify(patch)}`);
      await Promise.resolve();
      if (failing-- > 0) throw new StatusError(500, "InternalError", "etcd is away");
      for (const [key, value] of Object.entries(patch)) {
        if (value === null) delete labels[key];
        else labels[key] = value;
      }
      return {};
    },
  };
  return { client, labels, sent };
}

const quiet = (): void => undefined;

test("set: a merge PATCH of the pod's own labels, `true` when leading and null (removed) otherwise; the pod is never read", async () => {
  const pod = fakePod();
  pod.labels[LEADER_LABEL] = "true"; // a restarted container's pod keeps its labels
  const label = new LeaderPodLabel(pod.client, POD, quiet, FAST);
  await label.set(false);
  assert.equal(pod.labels[LEADER_LABEL], undefined);
  await label.set(true);
  assert.equal(pod.labels[LEADER_LABEL], "true");
  assert.equal(pod.labels["app.kubernetes.io/name"], "edgeloop-relay", "the other labels stay");
  assert.deepEqual(pod.sent, [`PATCH ${PATH} application/merge-patch+json {"${LEADER_LABEL}":null}`, `PATCH ${PATH} application/merge-patch+json {"${LEADER_LABEL}":"true"}`]);
  await label.set(true);
  assert.equal(pod.sent.length, 2, "written already: nothing sent");
});

test("a failed write is retried with backoff until it succeeds", async () => {
  const pod = fakePod(3);
  const lines: string[] = [];
  const label = new LeaderPodLabel(pod.client, POD, (level, msg) => void lines.push(`${level} ${msg}`), FAST);
  await label.set(true);
  assert.equal(pod.labels[LEADER_LABEL], "true");
  assert.equal(pod.sent.length, 4);
  assert.deepEqual(lines, ["warn leader label write failed", "warn leader label write failed", "warn leader label write failed", "info leader label set on this replica's pod"]);
});

test("wishes are written in order, the latest last: a clear still retrying at start never lands after the leader's mark", async () => {
  const pod = fakePod(2);
  pod.labels[LEADER_LABEL] = "true";
  const label = new LeaderPodLabel(pod.client, POD, quiet, FAST);
  const cleared = label.set(false);
  const marked = label.set(true); // leading before the clear got through
  await Promise.all([cleared, marked]);
  assert.equal(pod.labels[LEADER_LABEL], "true");
  assert.match(pod.sent.at(-1) ?? "", /"true"/);
  // And the other way: lost while the mark is in flight.
  const lost = fakePod();
  const other = new LeaderPodLabel(lost.client, POD, quiet, FAST);
  const marking = other.set(true);
  await other.set(false);
  await marking;
  assert.equal(lost.labels[LEADER_LABEL], undefined);
});

test("stop: one last attempt to clear the label when it may be set, no retry after; nothing when it is known absent", async () => {
  const pod = fakePod();
  const label = new LeaderPodLabel(pod.client, POD, quiet, FAST);
  await label.set(true);
  await label.stop();
  assert.equal(pod.labels[LEADER_LABEL], undefined);
  await label.set(true);
  assert.equal(pod.labels[LEADER_LABEL], undefined, "stopped: no more writes");

  const failing = fakePod(100);
  const stuck = new LeaderPodLabel(failing.client, POD, quiet, { firstMs: 60_000, maxMs: 60_000 });
  const pending = stuck.set(true); // fails, then waits a minute
  await new Promise((resolve) => setImmediate(resolve));
  await stuck.stop(); // ends the wait; one attempt to clear, which fails; done
  await pending;
  assert.equal(failing.sent.length, 2);

  const standby = fakePod();
  const never = new LeaderPodLabel(standby.client, POD, quiet, FAST);
  await never.set(false);
  await never.stop();
  assert.equal(standby.sent.length, 1, "a standby's cleared label is not cleared again");
});
