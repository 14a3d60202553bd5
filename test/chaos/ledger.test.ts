import assert from "node:assert/strict";
import { test } from "node:test";
import type { ClusterEvent } from "../../sim/contract.ts";
import type { KubeObject } from "../../protocol/index.ts";
import { Ledger } from "./ledger.ts";

function feed(): { ledger: Ledger; send: (type: ClusterEvent["type"], object: KubeObject) => void } {
  let listener: ((event: ClusterEvent) => void) | undefined;
  const ledger = new Ledger("chaos");
  ledger.watch({ watch: (_type, onEvent) => ((listener = onEvent), () => undefined) });
  return { ledger, send: (type, object) => listener?.({ type, object }) };
}
const pod = (name: string, uid: string, labels: Record<string, string>): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name, uid, namespace: "chaos", labels }, spec: {} }) as KubeObject;
const fl = (name: string, uid: string): KubeObject => pod(name, uid, { "federatedlearningjob.sedna.io/name": "fl-0", "edgeloop.dev/worker": "train-0" });
const collector = (name: string): KubeObject => pod(name, name, { "nervexjob-name": "nx-rep", "replica-type": "collector" });

test("two live objects in one slot at once is a duplicate, even when one is gone by the end; one after another is not", () => {
  const { ledger, send } = feed();
  ledger.beginRow();
  send("ADDED", fl("a", "1"));
  send("DELETED", fl("a", "1"));
  send("ADDED", fl("b", "2"));
  assert.equal(ledger.endRow().duplicated, 0, "a replacement after the delete");
  ledger.beginRow();
  send("ADDED", fl("c", "3"));
  send("DELETED", fl("c", "3"));
  const row = ledger.endRow();
  assert.equal(row.duplicated, 1, "b and c were live together");
  assert.equal(row.created, 1);
  assert.deepEqual(ledger.totals, { created: 3, replies: 0 });
});

test("a reply URL without a live pod is lost; replicas created beyond what replies asked are duplicates", () => {
  const { ledger, send } = feed();
  ledger.beginRow();
  for (const name of ["nx-rep-collector-aaaaa", "nx-rep-collector-bbbbb", "nx-rep-collector-ccccc"]) send("ADDED", collector(name));
  ledger.reply("nx-rep", "collector", 2, ["nx-rep-collector-aaaaa.chaos:80", "nx-rep-collector-zzzzz.chaos:80"]);
  assert.equal(ledger.replicasCreated("nx-rep", "collector"), 3);
  const row = ledger.endRow();
  assert.equal(row.lost, 1, "zzzzz does not exist");
  assert.equal(row.duplicated, 1, "3 created for 2 asked");
  assert.equal(row.replies, 1);
});
