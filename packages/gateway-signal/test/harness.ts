// The contract harness: the adapter against the testkit's signal-cli daemon fake. A platform
// message is an incoming envelope; its acknowledgement is the read receipt the adapter sends.
import type { GatewayHarness } from "@agentsvc/session-core/testing";
import { eventually, type FakeSignalDaemon, startSignalDaemon } from "@agentsvc/testkit";
import { SignalGateway, type SignalGatewayOptions } from "../src/index.js";

export const ACCOUNT = "+15550009999";

export async function signalHarness(
  options: Partial<SignalGatewayOptions> = {},
): Promise<GatewayHarness & { daemon: FakeSignalDaemon }> {
  // The mode the README recommends: messages wait on Signal's servers while no client is connected.
  const daemon = await startSignalDaemon({
    accounts: [ACCOUNT],
    keepaliveMs: 200,
    receiveMode: "on-connection",
  });
  const timestamps = new Map<string, number>();
  let clock = 1_800_000_000_000;
  let latest: SignalGateway | undefined;
  return {
    daemon,
    threads: ["+15550000001", "+15550000002"],
    gateway: () =>
      (latest = new SignalGateway({
        accountEnvVar: "SIGNAL_ACCOUNT",
        httpUrl: daemon.url,
        env: { SIGNAL_ACCOUNT: ACCOUNT },
        reconnect: { baseMs: 20, maxMs: 200 },
        ...options,
      })),
    inject: async (m) => {
      // The adapter may still be connecting; a message sent before that waits on Signal's servers.
      // A stream the adapter has just closed (a restart) may still look open to the daemon: a
      // message sent into it would be lost, as with the real daemon. Wait for the adapter's own.
      await eventually(
        () => latest?.connected === true && daemon.openStreams === 1,
        "an open events stream",
        2_000,
      ).catch(() => undefined);
      const timestamp = timestamps.get(m.id) ?? clock++;
      timestamps.set(m.id, timestamp);
      const receiptsFor = () =>
        daemon.receipts.filter((r) => r.recipient === m.thread && r.targetTimestamps.includes(timestamp))
          .length;
      const before = receiptsFor();
      daemon.receive(ACCOUNT, { from: m.thread, uuid: m.author, text: m.text, timestamp });
      await eventually(() => receiptsFor() > before, `the read receipt for ${m.id}`, 3_000);
    },
    sent: async () => daemon.sent.map((s) => ({ thread: s.recipient, text: s.message })),
    failNext: (status) =>
      daemon.failNext(
        status === 429
          ? { kind: "rpc", code: -5, message: "Failed to send message due to rate limiting" }
          : { kind: "http", status: 500 },
      ),
    close: () => daemon.close(),
  };
}
