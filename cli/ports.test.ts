import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import { test } from "node:test";
import { addressInUse, freePort, takenPort } from "./ports.ts";

test("a taken port is named with the flag that set it; 0 and free ports pass", async (t) => {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => server.close());
  const port = (server.address() as AddressInfo).port;
  assert.equal(await takenPort([{ flag: "--worker-port", port: 0 }, { flag: "--port", port }]), `port ${port} is in use: pass --port 0 or another port`);
  assert.equal(await takenPort([{ flag: "--port", port: 0 }]), undefined);
});

test("an EADDRINUSE raised later is mapped to its flag; other errors are left alone", () => {
  const ports = [{ flag: "--port", port: 6443 }, { flag: "--ops-port", port: 9090 }];
  assert.equal(addressInUse(Object.assign(new Error("listen EADDRINUSE: address already in use 127.0.0.1:9090"), { code: "EADDRINUSE", port: 9090 }), ports), "port 9090 is in use: pass --ops-port 0 or another port");
  assert.equal(addressInUse(new Error("workerd: Address already in use; 127.0.0.1:6443"), ports), "port 6443 is in use: pass --port 0 or another port");
  assert.equal(addressInUse(new Error("ECONNREFUSED"), ports), undefined);
});

test("a port picked for later is below the kernel's ephemeral range, and a taken one is passed over", async (t) => {
  const taken = createServer();
  taken.listen(32_767, "127.0.0.1");
  await once(taken, "listening");
  t.after(() => taken.close());
  // The first pick is the taken 32767 (random 0), the second 32767 - 6000.
  const picks = [0, 0.5];
  const port = await freePort("127.0.0.1", () => picks.shift() ?? 0.5);
  assert.equal(port, 32_767 - 6_000);
  for (let i = 0; i < 20; i++) assert.ok((await freePort()) < 32_768);
});
