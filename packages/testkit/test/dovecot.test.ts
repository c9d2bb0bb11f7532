// The test Dovecot's close: it kills the server (a graceful shutdown took its master about a second
// at every close) and leaves none of its processes behind, and its port refuses connections once
// close resolves.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { dovecotMissing, eventually, startDovecot } from "../src/index.js";

/** Live (not zombie) processes whose command line contains `mark`, with their parents. */
function processes(mark: string): { pid: number; ppid: number }[] {
  const found: { pid: number; ppid: number }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(mark)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (state !== "Z") found.push({ pid: Number(entry), ppid: Number(ppid) });
    } catch {
      // Exited while read.
    }
  }
  return found;
}

const alive = (pid: number) => {
  if (!existsSync(`/proc/${pid}/stat`)) return false;
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
};

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = new Socket();
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
    socket.connect(port, "127.0.0.1");
  });

describe.skipIf(dovecotMissing !== undefined || !existsSync("/proc"))("the test Dovecot", () => {
  it("close ends the server: its port refuses connections at once and none of its processes is left", async () => {
    const dovecot = await startDovecot();
    // The master's processes are titled after the instance name, which holds the port.
    const children = processes(`agentsvc-test-${dovecot.port}/`);
    expect(children.length).toBeGreaterThan(1);
    const master = children[0]?.ppid ?? 0;
    expect(children.every((p) => p.ppid === master)).toBe(true);
    await dovecot.close();
    expect(await refused(dovecot.port)).toBe(true);
    expect(alive(master)).toBe(false);
    await eventually(() => children.every((p) => !alive(p.pid)), "every process of the Dovecot ended");
  });
});
