// deafAfter (#43 item 11) against the fake signal-cli daemon: the events stream open and its
// keepalives coming (so the idle watchdog keeps it), no message for that long -> one warning and the
// stream reopened; a message after it still arrives.
import { eventually, type FakeSignalDaemon, startSignalDaemon } from "@agentsvc/testkit";
import { type StartedGateway, startGatewayAlone } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { SignalGateway } from "../src/index.js";
import { ACCOUNT } from "./harness.js";

let daemon: FakeSignalDaemon | undefined;
let alone: StartedGateway | undefined;

afterEach(async () => {
  await alone?.stop();
  await daemon?.close();
  alone = undefined;
  daemon = undefined;
});

describe("signal: deafAfter", () => {
  it("a stream kept open by keepalives that brings no message for deafAfter is reopened with a warning", async () => {
    daemon = await startSignalDaemon({ accounts: [ACCOUNT], keepaliveMs: 30 });
    const gateway = new SignalGateway({
      accountEnvVar: "SIGNAL_ACCOUNT",
      httpUrl: daemon.url,
      reconnect: { baseMs: 20, maxMs: 200 },
      deafAfter: "1s",
    });
    const t = await startGatewayAlone(gateway, { env: { SIGNAL_ACCOUNT: ACCOUNT } });
    alone = t;
    await eventually(() => daemon?.connections.length === 2, "the stream reopened", 5_000);
    const warning = t.logs().find((l) => /deafAfter/.test(l.msg));
    expect(warning).toMatchObject({ level: 40, deafAfterMs: 1_000 });
    expect(warning?.msg).toMatch(/while the signal-cli events stream is up \(deafAfter\); reconnecting/);
    // The idle watchdog did not do it: keepalives kept coming.
    expect(t.logs().some((l) => l.msg.includes("silent (no events or keepalives)"))).toBe(false);
    await eventually(() => daemon?.openStreams === 1, "the new stream open");
    daemon.receive(ACCOUNT, { from: "+15550000001", text: "still there?" });
    await eventually(() => t.delivered.length === 1, "the message on the new stream");
  });
});
