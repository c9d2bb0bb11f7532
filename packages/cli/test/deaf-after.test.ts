// deafAfter (#43 item 11) through the bundled bin: a signal entry whose events stream stays open
// (the fake daemon's keepalives) but brings no message is reopened after deafAfter, with a warning.
import { eventually, type FakeSignalDaemon, startSignalDaemon } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Served, serveBin } from "./child.js";
import { BOT_AGENT, linkPackages, tempDir, writeFiles } from "./helpers.js";

const ACCOUNT = "+15550001111";

describe("deafAfter through the bundled bin", () => {
  let daemon: FakeSignalDaemon;
  let served: Served | undefined;
  let root: string;

  beforeAll(async () => {
    daemon = await startSignalDaemon({ accounts: [ACCOUNT], keepaliveMs: 1_000 });
    root = tempDir("agentsvc-deaf-after-");
    writeFiles(root, {
      "package.json": JSON.stringify({ name: "deaf-after-fixture", private: true, type: "module" }),
      "agents/bot.mjs": BOT_AGENT,
      "gateways/signal.yaml": `type: signal\naccountEnvVar: SIGNAL_ACCOUNT\nhttpUrl: ${daemon.url}\ndeafAfter: 30s\n`,
    });
    linkPackages(root, { "@agentsvc/gateway-signal": "packages/gateway-signal" });
  }, 60_000);

  afterAll(async () => {
    await served?.stop();
    await daemon?.close();
  });

  it("reopens a signal events stream that is up but brought nothing for 30 s, and says so", async () => {
    served = await serveBin(["start", root, "--port", "0"], { SIGNAL_ACCOUNT: ACCOUNT });
    await eventually(() => daemon.connections.length >= 1, "the events stream", 20_000);
    await eventually(() => /deafAfter/.test(served?.output() ?? ""), "the deafAfter warning", 70_000);
    await eventually(() => daemon.connections.length >= 2, "the stream reopened", 20_000);
    expect(served.output()).toMatch(/nothing arrived for 3\d s while the signal-cli events stream is up/);
  }, 120_000);
});
