// roleLock (role-lock.ts): what a statement on another connection checks to know this link still
// leads a role (the role's key, the session's incarnation) — the outbox sender's due read checks its outbox roles with it (#45.3).
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { Leadership, leaderLockName, roleLock } from "../src/index.js";
import { advisoryKey } from "../src/keys.js";
import { lockHolders, terminate, usePostgres, waitFor } from "./helpers.js";

describe.skipIf(postgresMissing)("roleLock", () => {
  const pg = usePostgres();

  it("names the link's session (pid, incarnation) and the role's key while it leads, and nothing before or after", async () => {
    const link = await pg.link({ healthCheckMs: 0, reconnectMinMs: 50, reconnectMaxMs: 200 });
    expect(roleLock(link, "outbox:0")).toBeUndefined();
    const leadership = new Leadership(link, { retryMs: 100 });
    const handle = leadership.lead("outbox:0", { onAcquired: () => {} });
    await waitFor("the role led", () => handle.isLeader, 5_000);
    const lock = roleLock(link, "outbox:0");
    expect(lock).toEqual({
      pid: link.backendPid,
      key: advisoryKey(leaderLockName("outbox:0")).toString(),
      incarnation: link.incarnation,
    });
    // The pid is the session the server shows holding the role's lock.
    expect(await lockHolders(pg.mon, leaderLockName("outbox:0"))).toEqual([lock?.pid]);
    // Another role, not led here, is not named.
    expect(roleLock(link, "outbox:1")).toBeUndefined();
    await handle.stop();
    expect(roleLock(link, "outbox:0")).toBeUndefined();
    await leadership.stop();
  });

  it("names nothing once the link's session ended (the locks went with it)", async () => {
    const link = await pg.link({ healthCheckMs: 0, reconnectMinMs: 5_000, reconnectMaxMs: 5_000 });
    const leadership = new Leadership(link, { retryMs: 100 });
    const handle = leadership.lead("outbox:2", { onAcquired: () => {} });
    await waitFor("the role led", () => handle.isLeader, 5_000);
    await terminate(pg.mon, link.backendPid!);
    await waitFor("the drop seen", () => !link.connected, 5_000);
    expect(roleLock(link, "outbox:2")).toBeUndefined();
    await leadership.stop();
  });
});
