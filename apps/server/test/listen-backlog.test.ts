import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../src/index.js";
import { startHello } from "./hello-server.js";

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.shutdown();
});

// Opens `count` connections at once and prints how many the kernel completed within `ms`. It
// creates the file \`ready\` first, so the parent knows when to stop accepting.
const BURST = `
const net = require("node:net");
const [port, count, ms] = process.argv.slice(1, 4).map(Number);
require("node:fs").writeFileSync(process.argv[4], "");
let connected = 0;
for (let i = 0; i < count; i++) {
  const socket = net.connect(port, "127.0.0.1");
  socket.on("connect", () => connected++);
  socket.on("error", () => {});
}
// Counted after the poll phase that follows the timer: a loop turn runs its due timers before it
// reads what completed meanwhile, so a child kept off the CPU counted too few (0 of 1,500 once, at
// load 24-46).
setTimeout(() => setImmediate(() => { console.log(connected); process.exit(0); }), ms);
`;

/**
 * A burst of connections that arrives while the server's event loop is busy (blocked here): the
 * kernel completes as many handshakes as the listen backlog holds; the rest are dropped and only
 * retried a second or more later.
 */
async function connectedWhileBusy(server: RunningServer, count: number): Promise<number> {
  const ready = join(mkdtempSync(join(tmpdir(), "agentsvc-burst-")), "ready");
  const child = spawn(process.execPath, ["-e", BURST, String(server.port), String(count), "1000", ready], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (data: Buffer) => (out += data.toString()));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  // Busy (this process accepts nothing) from before the child connects until after it counted.
  const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  const deadline = Date.now() + 10_000;
  while (!existsSync(ready) && Date.now() < deadline) sleep(5);
  sleep(1500);
  await exited;
  return Number(out.trim());
}

const somaxconn = Number(readFileSync("/proc/sys/net/core/somaxconn", "utf8"));

describe("listening", () => {
  it.skipIf(somaxconn < 2048)(
    "queues a burst of 1,500 connections that arrive while the server is busy (backlog 4096, not Node's 511)",
    async () => {
      const server = await startHello();
      servers.push(server);
      expect(await connectedWhileBusy(server, 1500)).toBeGreaterThanOrEqual(1450);
    },
    15_000,
  );

  it("takes the backlog from its options", async () => {
    const server = await startHello({ backlog: 64 });
    servers.push(server);
    const connected = await connectedWhileBusy(server, 400);
    // The queue holds backlog + 1 connections on Linux.
    expect(connected).toBeGreaterThanOrEqual(60);
    expect(connected).toBeLessThanOrEqual(70);
  }, 15_000);
});
