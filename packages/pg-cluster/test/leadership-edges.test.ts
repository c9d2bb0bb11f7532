// Leadership at its edges, over real links to a real PostgreSQL: what a signal's reason says, the
// retake right after a reconnect, a stale failure from an earlier term, a lead without onLost or
// without onError, failures the server causes (reported with their context), and a handle stopped
// twice. Written from the survivors of `pnpm mutate pg-cluster src/leadership.ts` (#44).
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { InstanceLink, Leadership, type LeadershipEndedError, leaderLockName } from "../src/index.js";
import { limitedRole, lockHolders, sleep, terminate, usePostgres, waitFor } from "./helpers.js";

const RETRY_MS = 200;

describe.skipIf(postgresMissing)("Leadership at its edges", () => {
  const pg = usePostgres();

  it("the abort reason names the lead and says why: stopped, resigned, or lost with the link", async () => {
    const link = await pg.link({ healthCheckMs: 0, reconnectMinMs: 50, reconnectMaxMs: 200 });
    const leadership = new Leadership(link, { retryMs: RETRY_MS, onError: () => undefined });
    const reasons: LeadershipEndedError[] = [];
    const onAcquired = (signal: AbortSignal) =>
      void signal.addEventListener("abort", () => reasons.push(signal.reason as LeadershipEndedError));
    try {
      const stopped = leadership.lead("tg:stopped", { onAcquired });
      await waitFor("led", () => stopped.isLeader, 5_000);
      await stopped.stop();
      const lost = leadership.lead("tg:lost", { onAcquired });
      await waitFor("led", () => lost.isLeader, 5_000);
      await terminate(pg.mon, link.backendPid!);
      await waitFor("lost", () => reasons.length === 2, 5_000);
      expect(reasons.map((r) => [r.name, r.reason, r.message])).toEqual([
        ["LeadershipEndedError", "stopped", 'leadership of "tg:stopped" stopped'],
        ["LeadershipEndedError", "lost", 'leadership of "tg:lost" lost: the PostgreSQL link dropped'],
      ]);
    } finally {
      await leadership.stop();
    }
  });

  it("after its link reconnects, a leader that lost the lock takes it again at once, not a retry period later", async () => {
    const link = await pg.link({ healthCheckMs: 0, reconnectMinMs: 50, reconnectMaxMs: 200 });
    // A retry period far longer than the test: only the reconnect can bring the lead back.
    const leadership = new Leadership(link, { retryMs: 600_000, onError: () => undefined });
    let acquired = 0;
    try {
      const handle = leadership.lead("slack:reconnect", {
        onAcquired: () => {
          acquired += 1;
        },
      });
      await waitFor("led", () => handle.isLeader, 5_000);
      const before = link.backendPid!;
      await terminate(pg.mon, before);
      await waitFor("led again on the new session", () => handle.isLeader && acquired === 2, 10_000);
      expect(await lockHolders(pg.mon, leaderLockName("slack:reconnect"))).toEqual([link.backendPid]);
      expect(link.backendPid).not.toBe(before);
    } finally {
      await leadership.stop();
    }
  });

  it("leading() leaves out a name this instance contends for while another instance holds it", async () => {
    const other = await pg.link({ healthCheckMs: 0 });
    const mine = await pg.link({ healthCheckMs: 0 });
    const holder = new Leadership(other, { retryMs: RETRY_MS });
    const leadership = new Leadership(mine, { retryMs: RETRY_MS });
    try {
      const held = holder.lead("discord:taken", { onAcquired: () => undefined });
      await waitFor("the other leads", () => held.isLeader, 5_000);
      const waiting = leadership.lead("discord:taken", { onAcquired: () => undefined });
      const free = leadership.lead("discord:free", { onAcquired: () => undefined });
      await waitFor("led", () => free.isLeader, 5_000);
      await sleep(RETRY_MS * 2);
      expect(waiting.isLeader).toBe(false);
      expect(leadership.leading()).toEqual(["discord:free"]);
    } finally {
      await leadership.stop();
      await holder.stop();
    }
  });

  it("a failure from an earlier term, arriving after the lead was taken again, does not resign the new term", async () => {
    const link = await pg.link({ healthCheckMs: 0, reconnectMinMs: 50, reconnectMaxMs: 200 });
    const errors: [string, string][] = [];
    const leadership = new Leadership(link, {
      retryMs: RETRY_MS,
      onError: (e, context) => errors.push([e.message, context]),
    });
    let terms = 0;
    let failFirstTerm: (() => void) | undefined;
    try {
      const handle = leadership.lead("imap:stale", {
        onAcquired: (signal) => {
          terms += 1;
          if (terms > 1) return;
          // The first term's connection ends with an error, but only after the lead came back.
          return new Promise<void>((_, reject) => {
            failFirstTerm = () => reject(new Error("poll aborted"));
            signal.addEventListener("abort", () => undefined);
          });
        },
      });
      await waitFor("led", () => handle.isLeader, 5_000);
      await terminate(pg.mon, link.backendPid!);
      await waitFor("second term", () => terms === 2 && handle.isLeader, 10_000);
      failFirstTerm?.();
      await waitFor("reported", () => errors.some(([, c]) => c.endsWith("onAcquired")), 5_000);
      await sleep(RETRY_MS * 2);
      expect(handle.isLeader).toBe(true);
      expect(terms).toBe(2);
      expect(await lockHolders(pg.mon, leaderLockName("imap:stale"))).toEqual([link.backendPid]);
      expect(errors.filter(([, c]) => c.startsWith("leadership"))).toEqual([
        ["poll aborted", 'leadership "imap:stale": onAcquired'],
      ]);
    } finally {
      await leadership.stop();
    }
  });

  it("a lead without onLost loses its link quietly: nothing reported but the drop, and it leads again", async () => {
    const errors: string[] = [];
    const link = await pg.link({ healthCheckMs: 0, reconnectMinMs: 50, reconnectMaxMs: 200 });
    const leadership = new Leadership(link, {
      retryMs: RETRY_MS,
      onError: (_, context) => errors.push(context),
    });
    let aborted = 0;
    try {
      const handle = leadership.lead("signal:quiet", {
        onAcquired: (signal) =>
          void signal.addEventListener("abort", () => {
            aborted += 1;
          }),
      });
      await waitFor("led", () => handle.isLeader, 5_000);
      await terminate(pg.mon, link.backendPid!);
      await waitFor("aborted", () => aborted === 1, 5_000);
      await waitFor("led again", () => handle.isLeader, 10_000);
      expect(errors).toEqual([]);
    } finally {
      await leadership.stop();
    }
  });

  it("an onLost that throws is reported with its context, and the lead is taken again after the reconnect", async () => {
    const errors: [string, string][] = [];
    const link = await pg.link({ healthCheckMs: 0, reconnectMinMs: 50, reconnectMaxMs: 200 });
    const leadership = new Leadership(link, {
      retryMs: RETRY_MS,
      onError: (e, context) => errors.push([e.message, context]),
    });
    try {
      const handle = leadership.lead("whatsapp:throws", {
        onAcquired: () => undefined,
        onLost: () => {
          throw new Error("cleanup failed");
        },
      });
      await waitFor("led", () => handle.isLeader, 5_000);
      await terminate(pg.mon, link.backendPid!);
      await waitFor("reported", () => errors.some(([, c]) => c.endsWith("onLost")), 5_000);
      await waitFor("led again", () => handle.isLeader, 10_000);
      expect(errors.filter(([, c]) => c.startsWith("leadership"))).toEqual([
        ["cleanup failed", 'leadership "whatsapp:throws": onLost'],
      ]);
    } finally {
      await leadership.stop();
    }
  });

  it("without onError, a rejecting onAcquired still resigns (the lock is released) and nothing goes unhandled", async () => {
    const other = await pg.link({ healthCheckMs: 0 });
    const link = await pg.link({ healthCheckMs: 0 });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    const leadership = new Leadership(link, { retryMs: 600_000 });
    const next = new Leadership(other, { retryMs: RETRY_MS });
    try {
      const failing = leadership.lead("tg:nohandler", {
        onAcquired: async () => {
          await sleep(50);
          throw new Error("getUpdates refused");
        },
      });
      await waitFor("led", () => failing.isLeader, 5_000);
      const taker = next.lead("tg:nohandler", { onAcquired: () => undefined });
      await waitFor("the other instance takes over", () => taker.isLeader, 5_000);
      expect(failing.isLeader).toBe(false);
      await sleep(50);
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
      await leadership.stop();
      await next.stop();
    }
  });

  it("lock and unlock statements the server refuses are reported with their context, and the lead keeps trying", async () => {
    const rights = await limitedRole(pg.mon, pg.url, "leadership_limited");
    const link = new InstanceLink({ connectionString: rights.url, healthCheckMs: 0 });
    await link.connect();
    const errors: [string, string][] = [];
    const leadership = new Leadership(link, {
      retryMs: RETRY_MS,
      drainMs: 100,
      onError: (e, context) => errors.push([e.message, context]),
    });
    let resign: (() => void) | undefined;
    try {
      const resigning = leadership.lead("imap:refused", {
        onAcquired: () =>
          new Promise<void>((_, reject) => {
            resign = () => reject(new Error("login failed"));
          }),
      });
      const stopping = leadership.lead("tg:refused", { onAcquired: () => undefined });
      await waitFor("both led", () => resigning.isLeader && stopping.isLeader, 5_000);
      await rights.revoke();
      resign?.();
      await stopping.stop();
      await waitFor("a refused retry", () => errors.some(([, c]) => c.endsWith("lock attempt")), 5_000);
      const seen = errors.map(([message, context]) => [message.includes("permission denied"), context]);
      expect(seen).toEqual(
        expect.arrayContaining([
          [false, 'leadership "imap:refused": onAcquired'],
          [true, 'leadership "imap:refused": unlock'],
          [true, 'leadership "tg:refused": unlock'],
          [true, 'leadership "imap:refused": lock attempt'],
        ]),
      );
      // Once the server allows it again, the lead that kept trying gets the lock.
      await rights.grant();
      await waitFor("led after the grant", () => resigning.isLeader, 5_000);
    } finally {
      await rights.grant();
      await leadership.stop();
      await link.close();
    }
  });

  it("stopping an old handle again leaves a newer lead of the same name running and stoppable", async () => {
    const link = await pg.link({ healthCheckMs: 0 });
    const leadership = new Leadership(link, { retryMs: RETRY_MS });
    try {
      const old = leadership.lead("whatsapp:n", { onAcquired: () => undefined });
      await waitFor("led", () => old.isLeader, 5_000);
      await old.stop();
      const current = leadership.lead("whatsapp:n", { onAcquired: () => undefined });
      await waitFor("led again", () => current.isLeader, 5_000);
      await old.stop();
      expect(leadership.leading()).toEqual(["whatsapp:n"]);
      await leadership.stop();
      expect(current.isLeader).toBe(false);
      expect(await lockHolders(pg.mon, leaderLockName("whatsapp:n"))).toEqual([]);
    } finally {
      await leadership.stop();
    }
  });
  it("a link that drops while stop() drains the work is not reported as a lost lead (onLost is for involuntary ends)", async () => {
    const link = await pg.link({ healthCheckMs: 0, reconnectMinMs: 50, reconnectMaxMs: 200 });
    const leadership = new Leadership(link, { retryMs: RETRY_MS, onError: () => undefined });
    const log: string[] = [];
    let finish: (() => void) | undefined;
    try {
      const handle = leadership.lead("slack:draining", {
        // Work that takes its time to wind down after the signal aborts.
        onAcquired: (signal) =>
          new Promise<void>((done) => {
            finish = done;
            signal.addEventListener("abort", () => log.push(`aborted: ${(signal.reason as Error).message}`));
          }),
        onLost: () => log.push("lost"),
      });
      await waitFor("led", () => handle.isLeader, 5_000);
      const stopping = handle.stop();
      await terminate(pg.mon, link.backendPid!);
      await waitFor("reconnected", () => link.connected && link.generation === 2, 10_000);
      finish?.();
      await stopping;
      expect(log).toEqual(['aborted: leadership of "slack:draining" stopped']);
    } finally {
      await leadership.stop();
    }
  });

  it("stop() leaves no timer behind that would keep the process up for drainMs", async () => {
    const link = await pg.link({ healthCheckMs: 0 });
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const leadership = new Leadership(link, { retryMs: RETRY_MS, drainMs: 600_000 });
    let finish: (() => void) | undefined;
    try {
      const handle = leadership.lead("tg:timers", {
        onAcquired: () =>
          new Promise<void>((done) => {
            finish = done;
          }),
      });
      await waitFor("led", () => handle.isLeader, 5_000);
      const before = timers();
      const stopping = handle.stop();
      await sleep(20);
      finish?.();
      await stopping;
      expect(timers()).toBeLessThan(before + 1);
    } finally {
      await leadership.stop();
    }
  });
});
