// The Leadership object's own promises, over links in this process: which names it leads, one
// lead per name, stop() of everything, the reason a signal aborts with, what onError is told, and
// that a stop() waits for onAcquired's work only up to drainMs.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { InstanceLink, Leadership, LeadershipEndedError, leaderLockName } from "../src/index.js";
import { lockHolders, usePostgres, waitFor } from "./helpers.js";

const RETRY_MS = 200;

describe.skipIf(postgresMissing)("Leadership's own API", () => {
  const pg = usePostgres();

  async function linked(options: ConstructorParameters<typeof Leadership>[1] = {}) {
    const link = new InstanceLink({ connectionString: pg.url, healthCheckMs: 0 });
    await link.connect();
    return { link, leadership: new Leadership(link, { retryMs: RETRY_MS, ...options }) };
  }

  it("leading() names what it leads; a second lead of a name is refused; stop() releases every lock", async () => {
    const { link, leadership } = await linked();
    try {
      const a = leadership.lead("tg:a", { onAcquired: () => undefined });
      const b = leadership.lead("tg:b", { onAcquired: () => undefined });
      expect(() => leadership.lead("tg:a", { onAcquired: () => undefined })).toThrow(
        'Leadership.lead: "tg:a" is already being led here',
      );
      await waitFor("both led", () => a.isLeader && b.isLeader, 5_000);
      expect(leadership.leading().sort()).toEqual(["tg:a", "tg:b"]);
      await leadership.stop();
      expect(leadership.leading()).toEqual([]);
      expect([a.isLeader, b.isLeader]).toEqual([false, false]);
      expect(await lockHolders(pg.mon, leaderLockName("tg:a"))).toEqual([]);
      expect(await lockHolders(pg.mon, leaderLockName("tg:b"))).toEqual([]);
    } finally {
      await leadership.stop();
      await link.close();
    }
  });

  it("a name whose lead was stopped can be led again on the same Leadership", async () => {
    const { link, leadership } = await linked();
    try {
      const first = leadership.lead("slack:w", { onAcquired: () => undefined });
      await waitFor("led", () => first.isLeader, 5_000);
      await first.stop();
      expect(leadership.leading()).toEqual([]);
      const again = leadership.lead("slack:w", { onAcquired: () => undefined });
      await waitFor("led again", () => again.isLeader, 5_000);
      expect(leadership.leading()).toEqual(["slack:w"]);
    } finally {
      await leadership.stop();
      await link.close();
    }
  });

  it("stop() aborts the signal with reason stopped; a failing onAcquired aborts it with resigned and is reported by context", async () => {
    const errors: [string, string][] = [];
    const { link, leadership } = await linked({ onError: (e, context) => errors.push([e.message, context]) });
    const reasons: unknown[] = [];
    try {
      const stopped = leadership.lead("discord:g", {
        onAcquired: (signal) => void signal.addEventListener("abort", () => reasons.push(signal.reason)),
      });
      await waitFor("led", () => stopped.isLeader, 5_000);
      await stopped.stop();

      let thrown = 0;
      const resigning = leadership.lead("imap:box", {
        onAcquired: (signal) => {
          signal.addEventListener("abort", () => reasons.push(signal.reason));
          thrown += 1;
          if (thrown === 1) throw new Error("login failed");
        },
      });
      await waitFor("resigned and led again", () => thrown === 2 && resigning.isLeader, 5_000);
      expect(
        reasons.map((r) => [r instanceof LeadershipEndedError, (r as LeadershipEndedError).reason]),
      ).toEqual([
        [true, "stopped"],
        [true, "resigned"],
      ]);
      expect(errors).toEqual([["login failed", 'leadership "imap:box": onAcquired']]);
    } finally {
      await leadership.stop();
      await link.close();
    }
  });

  it("stop() waits for onAcquired's work at most drainMs, then releases the lock", async () => {
    const { link, leadership } = await linked({ drainMs: 100 });
    try {
      // Work that never settles, even after its signal aborts.
      const handle = leadership.lead("signal:+1555", { onAcquired: () => new Promise<void>(() => {}) });
      await waitFor("led", () => handle.isLeader, 5_000);
      await handle.stop();
      expect(await lockHolders(pg.mon, leaderLockName("signal:+1555"))).toEqual([]);
    } finally {
      await leadership.stop();
      await link.close();
    }
  });
});
