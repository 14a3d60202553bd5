import assert from "node:assert/strict";
import { test } from "node:test";
import { Metrics } from "./metrics.ts";
import { WatchReports } from "./watch-reports.ts";

test("relists and silence restarts are counted by informer and reason and said in the log; watch errors are warnings", async () => {
  const metrics = new Metrics();
  const lines: string[] = [];
  const reports = new WatchReports(metrics, (level, msg, fields) => void lines.push(`${level} ${msg} ${JSON.stringify(fields)}`), 300);
  reports.relisted('Pod.v1|a"b|', "expired", { deleted: 2, recreated: 1 });
  reports.restarted("Pod.v1||", "silent");
  reports.failed("Pod.v1||", new Error("pods is forbidden"));
  const text = await metrics.render();
  assert.match(text, /^edgeloop_relists_total\{informer="Pod\.v1\|a\\"b\|",reason="expired"\} 1$/m);
  assert.match(text, /^edgeloop_watch_restarts_total\{informer="Pod\.v1\|\|",reason="silent"\} 1$/m);
  assert.deepEqual(lines, [
    'info relisted {"informer":"Pod.v1|a\\"b|","reason":"expired","deleted":2,"recreated":1}',
    'info watch restarted {"informer":"Pod.v1||","reason":"silent","silenceSeconds":300}',
    'warn watch error {"informer":"Pod.v1||","error":"Error: pods is forbidden"}',
  ]);
});
