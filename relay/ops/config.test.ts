import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCli } from "../../cli/args.ts";
import { RELAY_OPTIONS, RelayEnv, RelayFlags, relayOptions, splitChannelFlags } from "./config.ts";

const spec = { name: "relay", help: "help", options: RELAY_OPTIONS, schema: RelayFlags };
const env = RelayEnv.parse({ EDGELOOP_SECRET: "0123456789abcdef0123" });

test("defaults and conversions", () => {
  const result = parseCli(spec, ["--worker-url", "http://127.0.0.1:8787", "--concurrency", "4"]);
  assert.equal(result.kind, "flags");
  if (result.kind !== "flags") return;
  const options = relayOptions(result.flags, env);
  assert.ok(!("error" in options));
  assert.equal(options.workerUrl, "http://127.0.0.1:8787");
  assert.equal(options.concurrency, 4);
  assert.equal(options.resyncSeconds, 600);
  assert.equal(options.maxRate, 2000);
  assert.equal(options.opsPort, 9090);
  assert.equal(options.front, undefined);
});

test("--resync-seconds 0 turns the periodic resync off; --watch-silence-seconds bounds a silent watch", () => {
  const off = parseCli(spec, ["--worker-url", "http://127.0.0.1:8787", "--resync-seconds", "0", "--watch-silence-seconds", "120"]);
  assert.ok(off.kind === "flags");
  const options = relayOptions(off.flags, env);
  assert.ok(!("error" in options));
  assert.equal(options.resyncSeconds, 0);
  assert.equal(options.watchSilenceSeconds, 120);
  const defaults = parseCli(spec, ["--worker-url", "http://127.0.0.1:8787"]);
  assert.ok(defaults.kind === "flags");
  const fallback = relayOptions(defaults.flags, env);
  assert.ok(!("error" in fallback) && fallback.watchSilenceSeconds === 300);
  const negative = parseCli(spec, ["--resync-seconds=-1"]);
  assert.ok(negative.kind === "error" && negative.message.startsWith("--resync-seconds:"), JSON.stringify(negative));
  const silent = parseCli(spec, ["--watch-silence-seconds", "0"]);
  assert.ok(silent.kind === "error" && silent.message.startsWith("--watch-silence-seconds:"), JSON.stringify(silent));
});

test("bad values name the flag", () => {
  assert.deepEqual(parseCli(spec, ["--concurrency", "0"]).kind, "error");
  const bad = parseCli(spec, ["--concurrency", "many"]);
  assert.ok(bad.kind === "error" && bad.message.startsWith("--concurrency:"), JSON.stringify(bad));
  const url = parseCli(spec, ["--worker-url", "not a url"]);
  assert.ok(url.kind === "error" && url.message.startsWith("--worker-url:"));
  const unknown = parseCli(spec, ["--wat", "1"]);
  assert.ok(unknown.kind === "error" && unknown.message.includes("--wat"));
  const front = parseCli(spec, ["--front-port", "8443"]);
  assert.ok(front.kind === "error" && front.message.startsWith("--tls-cert:"), JSON.stringify(front));
});

test("--help wins; the Worker URL may come from the environment; the secret is required", () => {
  assert.equal(parseCli(spec, ["--concurrency", "0", "--help"]).kind, "help");
  const result = parseCli(spec, []);
  assert.ok(result.kind === "flags");
  assert.deepEqual(relayOptions(result.flags, env), { error: "--worker-url (or EDGELOOP_WORKER_URL) is required" });
  const fromEnv = relayOptions(result.flags, { ...env, EDGELOOP_WORKER_URL: "https://w.example" });
  assert.ok(!("error" in fromEnv) && fromEnv.workerUrl === "https://w.example");
  assert.equal(RelayEnv.safeParse({}).success, false);
  assert.equal(RelayEnv.safeParse({ EDGELOOP_SECRET: "short" }).success, false);
});

test("the front listens on loopback unless a host is given", () => {
  const parsed = parseCli(spec, ["--front-port", "8443", "--tls-cert", "c.pem", "--tls-key", "k.pem"]);
  assert.ok(parsed.kind === "flags");
  const options = relayOptions(parsed.flags, { ...env, EDGELOOP_WORKER_URL: "https://w.example" });
  assert.ok(!("error" in options));
  assert.equal(options.front?.host, "127.0.0.1");
  const given = parseCli(spec, ["--front-port", "8443", "--tls-cert", "c.pem", "--tls-key", "k.pem", "--front-host", "10.0.0.7"]);
  assert.ok(given.kind === "flags");
  const withHost = relayOptions(given.flags, { ...env, EDGELOOP_WORKER_URL: "https://w.example" });
  assert.ok(!("error" in withHost) && withHost.front?.host === "10.0.0.7");
});

test("an edge channel's flags are split out before parsing and reach the options by channel name; the relay's own port flags stay its own", () => {
  const split = splitChannelFlags(["--worker-url", "http://127.0.0.1:8787", "--edge-port", "9000", "--edge-host=10.0.0.2", "--api-port", "8080"]);
  assert.deepEqual(split.errors, []);
  const result = parseCli(spec, split.rest);
  assert.ok(result.kind === "flags");
  const options = relayOptions(result.flags, env, split.endpoints);
  assert.ok(!("error" in options));
  assert.deepEqual(options.channels, { edge: { port: 9000, host: "10.0.0.2" } });
  assert.deepEqual(options.api, { port: 8080, host: "127.0.0.1" });
  const none = relayOptions(result.flags, env);
  assert.ok(!("error" in none) && none.channels === undefined);
  assert.deepEqual(splitChannelFlags(["--edge-port", "x"]).errors, ['--edge-port: expected a port (0-65535), got "x"']);
});

test("the leader labels its own pod only with --leader-elect and both POD_NAME and POD_NAMESPACE (the Deployment's downward API)", () => {
  const elected = parseCli(spec, ["--worker-url", "http://127.0.0.1:8787", "--leader-elect"]);
  const plain = parseCli(spec, ["--worker-url", "http://127.0.0.1:8787"]);
  assert.ok(elected.kind === "flags" && plain.kind === "flags");
  const inCluster = { ...env, POD_NAME: "edgeloop-relay-7d9f-abcde", POD_NAMESPACE: "edgeloop" };
  const pod = (flags: RelayFlags, given: RelayEnv): unknown => {
    const options = relayOptions(flags, given);
    assert.ok(!("error" in options));
    return options.leaderPod;
  };
  assert.deepEqual(pod(elected.flags, inCluster), { namespace: "edgeloop", name: "edgeloop-relay-7d9f-abcde" });
  assert.equal(pod(plain.flags, inCluster), undefined, "no leader election: no label");
  assert.equal(pod(elected.flags, { ...env, POD_NAME: "relay-a" }), undefined, "no POD_NAMESPACE (a local process): no label");
  assert.equal(pod(elected.flags, env), undefined);
});
