import { describe, expect, it } from "vitest";
import { gatewayLogger, Scheduler } from "../src/index.js";
import { captureLogs } from "./helpers.js";

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met");
    await tick(5);
  }
}

describe("Scheduler", () => {
  it("logs a failing task on its gateway's logger and keeps running it and the process", async () => {
    const logs = captureLogs();
    const root = new Scheduler(gatewayLogger("session", { destination: logs.stream }));
    const tgLogger = gatewayLogger("telegram", { destination: logs.stream });
    const sched = root.forGateway("telegram", tgLogger);
    let calls = 0;
    sched.every("poll", 5, async () => {
      calls += 1;
      if (calls <= 2) throw new Error(`boom ${calls}`);
    });
    sched.every("sync-throw", 5, () => {
      throw new Error("sync boom");
    });
    await until(() => calls >= 4);
    root.stopAll();
    const errors = logs.lines().filter((l) => l.level === 50);
    expect(
      errors.some((l) => l.name === "gateway-telegram" && String(l.msg).includes('"telegram:poll" failed')),
    ).toBe(true);
    expect(errors.some((l) => String(l.msg).includes('"telegram:sync-throw" failed'))).toBe(true);
    expect(errors.every((l) => l.name === "gateway-telegram")).toBe(true);
    // Still here: the errors did not escape as uncaught exceptions.
    expect(process.exitCode ?? 0).toBe(0);
  });

  it("lists tasks by scoped name and stops them all on shutdown", async () => {
    const root = new Scheduler(gatewayLogger("session", { level: "silent" }));
    const a = root.forGateway("discord", gatewayLogger("discord", { level: "silent" }));
    const b = root.forGateway("email", gatewayLogger("email", { level: "silent" }));
    let runs = 0;
    a.every("heartbeat", 5, () => {
      runs += 1;
    });
    b.schedule("imap-poll", 60_000, () => 60_000);
    expect(
      root
        .list()
        .map((t) => t.name)
        .sort(),
    ).toEqual(["discord:heartbeat", "email:imap-poll"]);
    expect(a.list().map((t) => t.name)).toEqual(["discord:heartbeat"]);
    await until(() => runs >= 2);
    root.stopAll();
    expect(root.list()).toEqual([]);
    const after = runs;
    await tick(30);
    expect(runs).toBe(after);
  });

  it("replaces a task registered again under the same name", async () => {
    const root = new Scheduler(gatewayLogger("session", { level: "silent" }));
    const s = root.forGateway("discord", gatewayLogger("discord", { level: "silent" }));
    let old = 0;
    let fresh = 0;
    s.every("heartbeat", 5, () => {
      old += 1;
    });
    s.every("heartbeat", 5, () => {
      fresh += 1;
    });
    await until(() => fresh >= 3);
    root.stopAll();
    expect(old).toBe(0);
    expect(root.list()).toHaveLength(0);
  });

  it("runs a self-rescheduling task at the delay it returns and drops it when it returns null", async () => {
    const root = new Scheduler(gatewayLogger("session", { level: "silent" }));
    const seen: number[] = [];
    root.schedule("countdown", 0, () => {
      seen.push(seen.length);
      return seen.length < 3 ? 1 : null;
    });
    await until(() => seen.length === 3 && root.list().length === 0);
    expect(seen).toEqual([0, 1, 2]);
  });

  it("retries a failing self-rescheduling task after its retry delay", async () => {
    const logs = captureLogs();
    const root = new Scheduler(gatewayLogger("signal", { destination: logs.stream }));
    let calls = 0;
    root.schedule(
      "reconnect",
      0,
      () => {
        calls += 1;
        if (calls === 1) throw new Error("daemon down");
        return null;
      },
      { retryMs: 1 },
    );
    await until(() => calls === 2);
    expect(logs.lines().filter((l) => l.level === 50)).toHaveLength(1);
  });
});
