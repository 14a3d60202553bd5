/**
 * The autonomy Node guard on a real control plane, with nothing answering it (the relay
 * or the Worker away, failurePolicy Fail): the real node-lifecycle controller's
 * `unreachable` taints still land, since its configuration's matchCondition leaves out
 * node-lifecycle's own user (kube-system:node-controller under
 * `--use-service-account-credentials`), while the admin's writes of an edge Node are
 * refused (issue 28, finding 7a). Only on a real control plane (`npm run test:cluster --
 * node-guard`): the sim's counterpart is sim/controllers/nodelifecycle-admission.test.ts.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { waitFor } from "../../cli/wait.ts";
import { nodeWebhookSpec } from "../../functions/controllers/autonomy/node-webhook.ts";
import { WebhookSpec } from "../../protocol/index.ts";
import { webhookConfigurations } from "../../scripts/lib/install/objects.ts";
import { kubectlFor, type Kubectl } from "../sim/kubectl.ts";
import { clusterReady, launchCluster } from "../support/cluster-cli.ts";

const GRACE_SECONDS = 10;
// Two nodes: with every node of the zone down, node-lifecycle enters full disruption and adds no NoExecute taint at all.
/** A port nothing listens on: every call of the webhook fails. */
const NOWHERE = "https://127.0.0.1:9/admission/autonomy-nodes";

let dir: string;
let child: ChildProcess;
let kubectl: Kubectl;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "edgeloop-node-guard-"));
  child = launchCluster(dir, ["--port", "0", "--nodes", "kw-edge,kw-cloud", "--node-grace-seconds", String(GRACE_SECONDS)]);
  kubectl = kubectlFor(String((await clusterReady(child)).kubeconfig));
});

after(async () => {
  if (child.exitCode === null) {
    child.kill("SIGINT");
    await once(child, "exit");
  }
  rmSync(dir, { recursive: true, force: true });
});

test("a fail-closed Node guard nobody answers does not hold back node-lifecycle's unreachable taints; the admin's edge Node writes are refused", async () => {
  await kubectl(["label", "node", "kw-edge", "openyurt.io/is-edge-worker=true"]);
  await kubectl(["annotate", "node", "kw-edge", "sim.edgeloop.dev/heartbeat=stopped"]);
  const [configuration] = webhookConfigurations([WebhookSpec.parse(nodeWebhookSpec)], () => ({ url: NOWHERE }), "-----BEGIN CERTIFICATE-----\nnone\n-----END CERTIFICATE-----\n");
  await kubectl(["apply", "-f", "-"], JSON.stringify(configuration));
  // The guard is live and fails closed: an admin's write of the edge Node is refused.
  await waitFor(
    "an admin's write of kw-edge refused by the unreachable guard",
    () => kubectl(["annotate", "--overwrite", "node", "kw-edge", `probe=${Date.now()}`]).then(() => "admitted", (error: Error) => error.message),
    (outcome) => outcome.includes("autonomy-nodes.edgeloop.dev"),
    { timeoutMs: 20_000, intervalMs: 500 },
  );
  const taints = await waitFor(
    "node-lifecycle's unreachable NoExecute taint on kw-edge",
    async () => JSON.parse((await kubectl(["get", "node", "kw-edge", "-o", "jsonpath={.spec.taints}"])) || "[]") as { key: string; effect: string }[],
    (list) => list.some((t) => t.key === "node.kubernetes.io/unreachable" && t.effect === "NoExecute"),
    { timeoutMs: (GRACE_SECONDS + 30) * 1000 },
  );
  assert.ok(taints.length > 0);
});
