// deafAfter (#43 item 11) against the Discord fake: heartbeats ACKed, no dispatch for that long ->
// one warning and a resume of the same session on a new connection; messages still arrive once.
import { eventually } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { expectOnceEach, nextConnection, type Rigged, say, startRig, stopRig } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

describe("discord: deafAfter", () => {
  it("heartbeats ACKed without dispatches for deafAfter: a warning, then the session resumed on a new connection", async () => {
    // Not the scaled clocks (a 356 ms silence limit, beats every 206 ms): under load their watchdog or
    // zombie check replaced the connection first, and the warning was not there. One beat (at 0.5 s)
    // is ACKed before deafAfter; a zombie would take a second one not ACKed, a second later.
    r = await startRig({ deafAfter: "1s", watchdogMs: 60_000 }, { heartbeatIntervalMs: 1_000 });
    const id = r.h.fake.sessions.current?.id;
    const next = await nextConnection(r, 1);
    const x = r;
    const warning = x.h.logs.find((l) => /deafAfter/.test(l.msg));
    expect(warning).toMatchObject({ level: 40, deafAfterMs: 1_000 });
    expect(warning?.msg).toMatch(/while the Discord gateway connection is up \(deafAfter\); reconnecting/);
    // Not the zombie check: the heartbeats were acknowledged.
    expect(x.h.logs.some((l) => /not acknowledged \(zombie/.test(l.msg))).toBe(false);
    await eventually(() => next.resumedSession !== undefined, "the resume");
    expect(next.resumedSession).toBe(id);
    say(x, "after deafAfter d1");
    await expectOnceEach(x, ["d1"]);
  });
});
